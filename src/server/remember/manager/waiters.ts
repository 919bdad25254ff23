import type { Db } from "../../db/client";
import { isFinal, readRun } from "./queue";
import type { FinalStatus } from "./types";

/*
 * Waiters: a submit with `wait: true` waits here for its run's final status. It polls the run's
 * row every pollMs (the run may be executed by another process) and is woken at once when the
 * run ends in this process. A run queued again for a retry is not final. When the process stops
 * (release), each wait answers with the status its run is left in: a run handed back is queued,
 * and the caller has its id to follow it, rather than an error of a closed database.
 */

/** How a wait ended: the run's final status, or, when the process stopped first, the status it was left in (released). */
export type RunEnd = { status: FinalStatus; error: string | null } | { status: "queued" | "started"; error: string | null; released: true };

/** how long release() lets the waiters read their runs' rows before it settles them as they were last seen */
const RELEASE_MS = 2000;

interface Waiter {
  /** look at the run's row now */
  wake(): void;
  /** settle with the status last seen (release, when the row did not come in time) */
  leave(): void;
}

export function createWaiters(db: Db, pollMs: number) {
  /** the waits, by run id */
  const waiters = new Map<string, Set<Waiter>>();
  /** the process is stopping: each wait reads its run's row once more and answers with it */
  let releasing = false;

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
      const waiter: Waiter = {
        wake: () => {
          if (settled) return;
          if (checking) recheck = true;
          else void check();
        },
        leave: () => settle({ status: lastStatus === "started" ? "started" : "queued", error: null, released: true }),
      };
      set.add(waiter);

      function settle(result: Error | RunEnd) {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        if (deadline) clearTimeout(deadline);
        const s = waiters.get(runId);
        s?.delete(waiter);
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
            if (releasing) return waiter.leave();
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

  const all = () => [...waiters.values()].flatMap((set) => [...set]);

  return {
    waitFor,
    /** a run of this process ended: its waiters look at its row now */
    wake(runId: string): void {
      for (const w of waiters.get(runId) ?? []) w.wake();
    },
    /**
     * The process is stopping (after its runs were handed back): every wait answers now, with its
     * run's status as the row says it (queued for a run handed back), within RELEASE_MS. A wait
     * that begins after this answers at its first look at the row.
     */
    /** The manager starts (again): waits wait for final statuses again. */
    resume(): void {
      releasing = false;
    },
    async release(): Promise<void> {
      releasing = true;
      for (const w of all()) w.wake();
      const end = Date.now() + RELEASE_MS;
      while (waiters.size > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      for (const w of all()) w.leave();
    },
  };
}
