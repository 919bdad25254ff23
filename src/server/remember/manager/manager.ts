import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { claimNext, failAbandoned, failIfStarted, isFinal, readRun, renewLeases } from "./queue";
import type { ClaimedRun, FinalStatus, RememberManager, RememberManagerOptions } from "./types";

/*
 * The remember manager: executes queued remember runs one at a time per dataset, in submission
 * order, up to `concurrency` at once in this process, from the queue in gb_remember_runs (see
 * queue.ts for the statements and why the claim is safe between processes).
 *
 * One poll ("tick") marks abandoned runs failed, then claims runs while this process has a free
 * slot. Ticks never overlap: a poke during a tick asks for another right after it. A run that
 * ends frees a slot and may unblock its dataset's next run, so it pokes too. While runs execute,
 * one heartbeat renews all their leases every leaseMs/3. Every timer is unref'd.
 */

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_POLL_MS = 500;

const defaultLog = (message: string, error?: unknown) => console.error(message, error ?? "");

function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message || e.name;
  return String(e);
}

export function createRememberManager(opts: RememberManagerOptions): RememberManager {
  const { db, execute } = opts;
  const concurrency = Math.max(1, Math.floor(opts.concurrency));
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
  const owner = opts.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const log = opts.log ?? defaultLog;

  let started = false;
  let pollTimer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> | null = null;
  let tickAgain = false;
  /** runs executing in this process, by id */
  const running = new Map<string, Promise<void>>();
  let heartbeat: NodeJS.Timeout | null = null;
  let renewing = false;
  /** runs whose lease we already reported lost */
  const lost = new Set<string>();
  /** waitFor callers to wake when a run of this process ends */
  const waiters = new Map<string, Set<() => void>>();

  function schedule(delay: number) {
    if (!started) return;
    if (pollTimer) clearTimeout(pollTimer);
    pollTimer = setTimeout(() => {
      pollTimer = null;
      void tick();
    }, delay);
    pollTimer.unref();
  }

  function tick(): Promise<void> {
    if (ticking) {
      tickAgain = true;
      return ticking;
    }
    ticking = (async () => {
      do {
        tickAgain = false;
        try {
          for (const r of await failAbandoned(db)) log(`remember run ${r.id} (dataset ${r.datasetId}): ${r.error}`);
        } catch (e) {
          log("remember manager: marking abandoned runs failed", e);
        }
        while (started && running.size < concurrency) {
          let run: ClaimedRun | null;
          try {
            run = await claimNext(db, owner, leaseMs);
          } catch (e) {
            log("remember manager: claiming a run", e);
            break;
          }
          if (!run) break;
          launch(run);
        }
      } while (tickAgain && started);
    })().finally(() => {
      ticking = null;
      // a poke that came after the last round's check still gets its round now
      schedule(tickAgain ? 0 : pollMs);
      tickAgain = false;
    });
    return ticking;
  }

  function launch(run: ClaimedRun) {
    const done = (async () => {
      let error = "the run ended without finishing its run log";
      try {
        await execute(run);
      } catch (e) {
        error = errorMessage(e);
      }
      try {
        // A no-op when the pipeline finished the run (or another process marked it abandoned).
        await failIfStarted(db, run, owner, error);
      } catch (e) {
        log(`remember run ${run.id}: marking it failed`, e);
      }
    })().finally(() => {
      running.delete(run.id);
      lost.delete(run.id);
      if (running.size === 0) stopHeartbeat();
      for (const wake of waiters.get(run.id) ?? []) wake();
      if (started) poke();
    });
    running.set(run.id, done);
    startHeartbeat();
  }

  function startHeartbeat() {
    if (heartbeat) return;
    heartbeat = setInterval(() => void renew(), Math.max(1, Math.floor(leaseMs / 3)));
    heartbeat.unref();
  }

  function stopHeartbeat() {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = null;
  }

  async function renew() {
    if (renewing || running.size === 0) return;
    renewing = true;
    try {
      const held = await renewLeases(db, owner, leaseMs);
      for (const id of running.keys()) {
        if (held.has(id) || lost.has(id)) continue;
        // Not held: finished by its pipeline (not started any more, the usual case at the end of
        // a run), or marked abandoned by some process because our heartbeat came too late.
        const row = await readRun(db, id);
        if (running.has(id) && row?.status === "failed" && row.error?.startsWith("abandoned:")) {
          lost.add(id);
          log(`remember run ${id}: this process lost its lease while running it (${row.error}); its run-log writes are now ignored`);
        }
      }
    } catch (e) {
      log("remember manager: renewing leases", e);
    } finally {
      renewing = false;
    }
  }

  function poke() {
    if (!started) return;
    if (pollTimer) {
      clearTimeout(pollTimer);
      pollTimer = null;
    }
    void tick();
  }

  return {
    start() {
      if (started) return;
      started = true;
      poke();
    },

    async stop() {
      started = false;
      if (pollTimer) clearTimeout(pollTimer);
      pollTimer = null;
      // A tick in progress may still launch the run it is claiming; then wait for every run.
      if (ticking) await ticking;
      while (running.size > 0) await Promise.allSettled([...running.values()]);
    },

    poke,

    waitFor(runId, timeoutMs) {
      return new Promise<{ status: FinalStatus; error: string | null }>((resolve, reject) => {
        let settled = false;
        let checking = false;
        let recheck = false;
        let lastStatus = "unknown";
        // These timers stay ref'd on purpose: someone awaits this promise, and an unref'd timer
        // would let the process exit with it unsettled.
        let timer: NodeJS.Timeout | null = null;
        const deadline =
          timeoutMs === undefined
            ? null
            : setTimeout(
                () => settle(new Error(`remember run ${runId}: not finished after ${timeoutMs} ms (status ${lastStatus})`)),
                timeoutMs,
              );
        let set = waiters.get(runId);
        if (!set) waiters.set(runId, (set = new Set()));
        const wake = () => {
          if (settled) return;
          if (checking) recheck = true;
          else void check();
        };
        set.add(wake);

        function settle(result: Error | { status: FinalStatus; error: string | null }) {
          if (settled) return;
          settled = true;
          if (timer) clearTimeout(timer);
          if (deadline) clearTimeout(deadline);
          const s = waiters.get(runId);
          s?.delete(wake);
          if (s?.size === 0) waiters.delete(runId);
          if (result instanceof Error) reject(result);
          else resolve(result);
        }

        async function check() {
          if (timer) clearTimeout(timer);
          timer = null;
          checking = true;
          try {
            do {
              recheck = false;
              const row = await readRun(db, runId);
              if (settled) return;
              if (!row) return settle(new Error(`remember run ${runId}: no such run`));
              lastStatus = row.status;
              if (isFinal(row.status)) return settle({ status: row.status, error: row.error });
            } while (recheck);
          } catch (e) {
            return settle(e instanceof Error ? e : new Error(String(e)));
          } finally {
            checking = false;
          }
          if (!settled) timer = setTimeout(() => void check(), pollMs);
        }

        void check();
      });
    },
  };
}
