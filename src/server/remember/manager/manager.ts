import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { inBackground } from "../../db/lanes";
import { errorText, logError } from "../../errors";
import { createLeases, describeRow, type HeldRun } from "./leases";
import { attemptEnding, endedMessage, ShutdownError } from "./outcome";
import { endAttempt } from "./queue";
import { createScheduler } from "./scheduler";
import { DEFAULT_RETRY, type ClaimedRun, type RememberManager, type RememberManagerOptions, type StopReport } from "./types";
import { createWaiters } from "./waiters";

/*
 * The remember manager: executes queued remember runs one at a time per dataset, in submission
 * order, up to `concurrency` at once in this process, from the queue in gb_remember_runs (see
 * queue.ts for the statements and why the claim is safe between processes). Its parts:
 *
 *   scheduler.ts  polls and claims while a slot is free; a run that ends pokes it
 *   leases.ts     the heartbeat, a lost lease (read from the run's row), dead processes' runs
 *   waiters.ts    waitFor: a submit that waits for its run
 *   outcome.ts    how an attempt ends (pure)
 *
 * Here: a claimed run is executed; when execute returns or throws, the run's row says whether
 * this attempt still holds it, and the attempt ends by that and by what was thrown: failed for
 * good, queued again with a backoff, handed back (shutdown), or left alone (lost).
 */

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_POLL_MS = 500;
/** after a shutdown's grace period, how long aborted runs get to unwind before they are handed back as they are */
const ABORT_WAIT_MS = 3_000;

const defaultLog = (message: string, error?: unknown) => logError(message, error);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

interface Running extends HeldRun {
  /** stop() aborted it at the end of its grace period: it goes back to the queue */
  stopping: boolean;
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

  /** runs executing in this process, by id */
  const running = new Map<string, Running>();
  let handedBack = 0;
  const leases = createLeases({ db, owner, leaseMs, retry, liveness: opts.liveness, sole: opts.sole, embeddingSpace: opts.embeddingSpace, running, log });
  const waiters = createWaiters(db, pollMs);
  const scheduler = createScheduler({ db, owner, leaseMs, pollMs, concurrency, embeddingSpace: opts.embeddingSpace, leases, busy: () => running.size, launch, log });

  /** Ends an attempt by its run's row and by what execute did (see RememberManagerOptions.execute). */
  async function settle(entry: Running, threw: boolean, thrown: unknown): Promise<void> {
    const { run } = entry;
    if (entry.lost) return;
    const { hold, row } = await leases.hold(run);
    const ending = attemptEnding({ threw, thrown, hold, stopping: entry.stopping });
    if (ending === "done") return;
    if (ending === "lost") {
      const why = threw ? `: ${errorText(thrown)}` : "";
      log(`remember run ${run.id}: attempt ${run.attempt} no longer holds the run (now ${describeRow(row)}); it ends without writing${why}`);
      return;
    }
    const ended = await endAttempt(db, run, ending, threw ? errorText(thrown) : "the run ended without finishing its run log", retry);
    if (ended && ending === "handed_back") handedBack++;
    // a permanent failure is the run's own error, which the run shows; the rest is the queue's news
    if (ended && (ending !== "permanent" || !threw)) log(endedMessage(ended, ending));
  }

  function launch(run: ClaimedRun) {
    const entry: Running = { run, controller: new AbortController(), lost: false, stopping: false, done: Promise.resolve() };
    // the run's statements take the embedded database's background lane (db/lanes.ts)
    entry.done = inBackground(async () => {
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
    }).finally(() => {
      running.delete(run.id);
      if (running.size === 0) leases.stopHeartbeat();
      waiters.wake(run.id);
      scheduler.poke();
    });
    running.set(run.id, entry);
    leases.startHeartbeat();
  }

  /** Resolves when no run is in flight, or after ms (whichever is first). */
  async function drained(ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (running.size > 0 && Date.now() < end) {
      await Promise.race([Promise.allSettled([...running.values()].map((r) => r.done)), sleep(end - Date.now())]);
    }
  }

  /** After the grace period: aborts the runs in flight, then hands back those that do not stop. */
  async function handBack(graceMs: number): Promise<void> {
    await drained(graceMs);
    for (const entry of running.values()) {
      entry.stopping = true;
      entry.controller.abort(new ShutdownError());
    }
    await drained(ABORT_WAIT_MS);
    // Still in flight: stuck in something that does not heed the signal. Hand it back as it is;
    // what it does later is fenced (it no longer holds the run).
    for (const entry of [...running.values()]) {
      entry.lost = true;
      const ended = await endAttempt(db, entry.run, "handed_back", new ShutdownError().message, retry).catch((e: unknown) => {
        log(`remember run ${entry.run.id}: handing it back`, e);
        return null;
      });
      if (ended) handedBack++;
    }
  }

  return {
    start: () => {
      waiters.resume();
      scheduler.start();
    },
    poke: () => scheduler.poke(),
    waitFor: (runId, timeoutMs) => waiters.waitFor(runId, timeoutMs),

    async stop({ graceMs } = {}): Promise<StopReport> {
      // A tick in progress may still launch the run it is claiming; then wait for it too.
      await scheduler.stop();
      const inFlight = running.size;
      handedBack = 0;
      if (graceMs === undefined) {
        while (running.size > 0) await Promise.allSettled([...running.values()].map((r) => r.done));
      } else {
        await handBack(graceMs);
      }
      leases.stopHeartbeat();
      await leases.release();
      // the submits waiting on a run answer with the status it is left in (queued when handed back)
      await waiters.release();
      return { finished: inFlight - handedBack, handedBack };
    },
  };
}
