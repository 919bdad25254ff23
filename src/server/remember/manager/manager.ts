import { randomBytes, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { SessionLock } from "../../db/client";
import { errorText, logError } from "../../errors";
import { LeaseLostError, ShutdownError, outcomeOf } from "./outcome";
import { claimNext, type EndedRun, endAttempt, isFinal, readRun, renewLeases, requeueAbandoned } from "./queue";
import {
  type AttemptKind,
  type ClaimedRun,
  DEFAULT_RETRY,
  type FinalStatus,
  type RememberManager,
  type RememberManagerOptions,
  type StopReport,
} from "./types";

/*
 * The remember manager: executes queued remember runs one at a time per dataset, in submission
 * order, up to `concurrency` at once in this process, from the queue in gb_remember_runs (see
 * queue.ts for the statements and why the claim is safe between processes).
 *
 * One poll ("tick") takes back the runs of dead processes (requeueAbandoned), then claims runs
 * while this process has a free slot. Ticks never overlap: a poke during a tick asks for another
 * right after it. A run that ends frees a slot and may unblock its dataset's next run, so it
 * pokes too. While runs execute, one heartbeat renews all their leases every leaseMs/3, and
 * aborts a run whose lease was taken back (its pipeline stops; its writes are fenced anyway).
 *
 * How an attempt ends is decided here, from what execute threw (outcome.ts): failed for good,
 * queued again with a backoff, handed back (shutdown), or left alone (lease lost). Every timer is
 * unref'd.
 */

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_POLL_MS = 500;
/** after a shutdown's grace period, how long aborted runs get to unwind before they are handed back as they are */
const ABORT_WAIT_MS = 3_000;

const defaultLog = (message: string, error?: unknown) => logError(message, error);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** A random positive 63-bit key for this manager's liveness lock. */
const randomKey = (): bigint => randomBytes(8).readBigInt64BE() & 0x7fff_ffff_ffff_ffffn;

interface Running {
  run: ClaimedRun;
  controller: AbortController;
  /** the run was taken back from this process: its end writes nothing */
  lost: boolean;
  done: Promise<void>;
}

export function createRememberManager(opts: RememberManagerOptions): RememberManager {
  const { db, execute } = opts;
  const concurrency = Math.max(1, Math.floor(opts.concurrency));
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
  const retry = opts.retry ?? DEFAULT_RETRY;
  const owner = opts.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const log = opts.log ?? defaultLog;
  const livenessKey = randomKey();
  /** takes the liveness lock; dropped when the database has none (PGlite) */
  let takeLiveness = opts.liveness;

  let started = false;
  let pollTimer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> | null = null;
  let tickAgain = false;
  /** the sole process's one-time sweep of runs found started (see options.sole) */
  let recovered = false;
  let liveness: SessionLock | null = null;
  let livenessCheckedAt = 0;
  /** runs executing in this process, by id */
  const running = new Map<string, Running>();
  let handedBack = 0;
  let heartbeat: NodeJS.Timeout | null = null;
  let renewing = false;
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

  function reportEnded(r: EndedRun, kind: AttemptKind) {
    const what = r.status === "failed" ? `failed (${r.error})` : "queued again";
    log(`remember run ${r.id} (dataset ${r.datasetId}): attempt ended (${kind}: ${r.reason}); ${what}`);
  }

  /**
   * The liveness lock's key, taking the lock first if needed, and checking every leaseMs/3 that
   * its connection is still there (a lock lost with its connection is taken again). Null when
   * this database has no liveness locks (PGlite, or none asked for).
   */
  async function livenessLock(): Promise<bigint | null> {
    if (!takeLiveness) return null;
    if (liveness && Date.now() - livenessCheckedAt < leaseMs / 3) return liveness.key;
    if (liveness && !(await liveness.alive())) {
      log(`remember manager ${owner}: the connection of its liveness lock is gone; taking the lock again`);
      await liveness.release();
      liveness = null;
    }
    liveness ??= await takeLiveness(livenessKey);
    livenessCheckedAt = Date.now();
    if (!liveness) takeLiveness = undefined; // this database has none: leases alone
    return liveness?.key ?? null;
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
          if (opts.sole && !recovered) {
            for (const r of await requeueAbandoned(db, retry, { all: true, exceptOwner: owner })) reportEnded(r, "abandoned");
            recovered = true;
          }
          for (const r of await requeueAbandoned(db, retry, { exceptOwner: owner })) reportEnded(r, "abandoned");
        } catch (e) {
          log("remember manager: taking back abandoned runs", e);
        }
        let key: bigint | null;
        try {
          key = await livenessLock();
        } catch (e) {
          // without it, other processes would take our runs back at once: claim nothing now
          log("remember manager: taking its liveness lock", e);
          continue;
        }
        while (started && running.size < concurrency) {
          let run: ClaimedRun | null;
          try {
            run = await claimNext(db, owner, leaseMs, key);
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

  /** Ends an attempt by what execute did (see RememberManagerOptions.execute). */
  async function settle(entry: Running, threw: boolean, thrown: unknown): Promise<void> {
    const { run } = entry;
    if (entry.lost) return;
    if (!threw) {
      // A no-op when the pipeline finished the run (the usual case).
      const ended = await endAttempt(db, run, "permanent", "the run ended without finishing its run log", retry);
      if (ended) reportEnded(ended, "permanent");
      return;
    }
    const outcome = outcomeOf(thrown);
    if (outcome === "lease_lost") {
      log(`remember run ${run.id}: ${errorText(thrown)}`);
      return;
    }
    const stopping = entry.controller.signal.aborted && outcomeOf(entry.controller.signal.reason) === "shutdown";
    const kind: AttemptKind = outcome === "shutdown" || stopping ? "handed_back" : outcome === "transient" ? "transient" : "permanent";
    const ended = await endAttempt(db, run, kind, errorText(thrown), retry);
    if (ended && kind === "handed_back") handedBack++;
    if (ended && kind !== "permanent") reportEnded(ended, kind);
  }

  function launch(run: ClaimedRun) {
    const entry: Running = { run, controller: new AbortController(), lost: false, done: Promise.resolve() };
    entry.done = (async () => {
      let threw = false;
      let thrown: unknown;
      try {
        await execute(run, entry.controller.signal);
      } catch (e) {
        threw = true;
        thrown = e;
      }
      try {
        await settle(entry, threw, thrown);
      } catch (e) {
        // the run stays started with our lease; once that expires, it is taken back like any other
        log(`remember run ${run.id}: ending its attempt`, e);
      }
    })().finally(() => {
      running.delete(run.id);
      if (running.size === 0) stopHeartbeat();
      for (const wake of waiters.get(run.id) ?? []) wake();
      if (started) poke();
    });
    running.set(run.id, entry);
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
      for (const entry of running.values()) {
        const { id, attempt } = entry.run;
        if (entry.lost || held.get(id) === attempt) continue;
        // Not held: finished by its pipeline (the usual case at the end of a run), or taken back
        // by some process because our heartbeat came too late or our liveness lock was lost.
        const row = await readRun(db, id);
        if (!running.has(id) || (row && row.attempts === attempt && isFinal(row.status))) continue;
        entry.lost = true;
        const now = row ? `${row.status}, attempt ${row.attempts}` : "gone";
        entry.controller.abort(new LeaseLostError(`this process lost remember run ${id} (attempt ${attempt}; the run is now ${now}); it stops without writing more`));
        log(`remember run ${id}: this process lost its lease while running it (now ${now}); its pipeline is stopped`);
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

  /** Resolves when no run is in flight, or after ms (whichever is first). */
  async function drained(ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (running.size > 0 && Date.now() < end) {
      await Promise.race([Promise.allSettled([...running.values()].map((r) => r.done)), sleep(end - Date.now())]);
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      poke();
    },

    async stop({ graceMs } = {}): Promise<StopReport> {
      started = false;
      if (pollTimer) clearTimeout(pollTimer);
      pollTimer = null;
      // A tick in progress may still launch the run it is claiming; then wait for it too.
      if (ticking) await ticking;
      const inFlight = running.size;
      handedBack = 0;
      if (graceMs === undefined) {
        while (running.size > 0) await Promise.allSettled([...running.values()].map((r) => r.done));
      } else {
        await drained(graceMs);
        for (const entry of running.values()) entry.controller.abort(new ShutdownError());
        await drained(ABORT_WAIT_MS);
        // Still in flight: stuck in something that does not heed the signal. Hand it back as it
        // is; what it does later is fenced (it no longer holds the run).
        for (const entry of [...running.values()]) {
          entry.lost = true;
          const ended = await endAttempt(db, entry.run, "handed_back", new ShutdownError().message, retry).catch((e: unknown) => {
            log(`remember run ${entry.run.id}: handing it back`, e);
            return null;
          });
          if (ended) handedBack++;
        }
      }
      stopHeartbeat();
      await liveness?.release();
      liveness = null;
      return { finished: inFlight - handedBack, handedBack };
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
