import type { Db } from "../../db/client";
import type { Leases } from "./leases";
import { claimNext } from "./queue";
import type { ClaimedRun } from "./types";

/*
 * The scheduler: polls the queue and claims runs while this process has a free slot (up to
 * `concurrency`, across datasets; one run at a time per dataset, in submission order, is the
 * claim's own rule, queue.ts). One poll ("tick") first takes back dead processes' runs, then
 * claims. Ticks never overlap: a poke during a tick asks for another right after it. Every timer
 * is unref'd.
 */

export interface SchedulerOptions {
  db: Db;
  owner: string;
  leaseMs: number;
  pollMs: number;
  concurrency: number;
  /** RememberManagerOptions.embeddingSpace */
  embeddingSpace?: string;
  leases: Pick<Leases, "sweep" | "livenessKey">;
  /** how many runs this process executes now */
  busy: () => number;
  /** executes a claimed run (without waiting for it) */
  launch: (run: ClaimedRun) => void;
  log: (message: string, error?: unknown) => void;
}

export function createScheduler(o: SchedulerOptions) {
  let started = false;
  let pollTimer: NodeJS.Timeout | null = null;
  let ticking: Promise<void> | null = null;
  let tickAgain = false;

  function schedule(delay: number) {
    if (!started) return;
    if (pollTimer) clearTimeout(pollTimer);
    pollTimer = setTimeout(() => {
      pollTimer = null;
      void tick();
    }, delay);
    pollTimer.unref();
  }

  /** Claims runs until the slots are full or none may start. */
  async function claim(key: bigint | null) {
    while (started && o.busy() < o.concurrency) {
      let run: ClaimedRun | null;
      try {
        run = await claimNext(o.db, o.owner, o.leaseMs, key, o.embeddingSpace);
      } catch (e) {
        o.log("remember manager: claiming a run", e);
        return;
      }
      if (!run) return;
      if (o.embeddingSpace !== undefined && run.embeddingSpace !== null && run.embeddingSpace !== o.embeddingSpace) {
        o.log(`remember run ${run.id} was submitted by a process with embeddings "${run.embeddingSpace}"; none is running, so this one stores it with "${o.embeddingSpace}"`);
      }
      o.launch(run);
    }
  }

  function tick(): Promise<void> {
    if (ticking) {
      tickAgain = true;
      return ticking;
    }
    ticking = (async () => {
      do {
        tickAgain = false;
        await o.leases.sweep();
        let key: bigint | null;
        try {
          key = await o.leases.livenessKey();
        } catch (e) {
          o.log("remember manager: taking its liveness lock", e);
          continue;
        }
        await claim(key);
      } while (tickAgain && started);
    })().finally(() => {
      ticking = null;
      // a poke that came after the last round's check still gets its round now
      schedule(tickAgain ? 0 : o.pollMs);
      tickAgain = false;
    });
    return ticking;
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
    /** begins polling; idempotent */
    start(): void {
      if (started) return;
      started = true;
      poke();
    },
    /** claims no more; resolves once a tick in progress (which may still launch the run it is claiming) is over */
    async stop(): Promise<void> {
      started = false;
      if (pollTimer) clearTimeout(pollTimer);
      pollTimer = null;
      if (ticking) await ticking;
    },
    /** looks for work now (a submit, a run that ended) */
    poke,
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
