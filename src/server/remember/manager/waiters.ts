import type { Db } from "../../db/client";
import { isFinal, readRun } from "./queue";
import type { FinalStatus } from "./types";

/*
 * Waiters: a submit with `wait: true` waits here for its run's final status. It polls the run's
 * row every pollMs (the run may be executed by another process) and is woken at once when the
 * run ends in this process. A run queued again for a retry is not final.
 */

export type RunEnd = { status: FinalStatus; error: string | null };

export function createWaiters(db: Db, pollMs: number) {
  /** the callers to wake when a run of this process ends, by run id */
  const waiters = new Map<string, Set<() => void>>();

  function waitFor(runId: string, timeoutMs?: number): Promise<RunEnd> {
    return new Promise<RunEnd>((resolve, reject) => {
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
          : setTimeout(() => settle(new Error(`remember run ${runId}: not finished after ${timeoutMs} ms (status ${lastStatus})`)), timeoutMs);
      let set = waiters.get(runId);
      if (!set) waiters.set(runId, (set = new Set()));
      const wake = () => {
        if (settled) return;
        if (checking) recheck = true;
        else void check();
      };
      set.add(wake);

      function settle(result: Error | RunEnd) {
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
  }

  return {
    waitFor,
    /** a run of this process ended: its waiters look at its row now */
    wake(runId: string): void {
      for (const wake of waiters.get(runId) ?? []) wake();
    },
  };
}
