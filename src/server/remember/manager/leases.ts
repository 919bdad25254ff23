import { randomBytes } from "node:crypto";
import type { Db, SessionLock, SessionLockOptions } from "../../db/client";
import { endedMessage, LeaseLostError } from "./outcome";
import { isFinal, readRun, renewLeases, requeueAbandoned, type RunState } from "./queue";
import type { ClaimedRun, Hold, RetryPolicy } from "./types";

/*
 * Leases: how this process shows that it is alive while it runs runs, and how it learns that it
 * no longer holds one. A claimed run's row carries our lease (lease_owner, lease_expires_at) and,
 * on Postgres, the key of our liveness lock (lease_lock). The heartbeat renews every lease we hold
 * each leaseMs/3; a run it did not renew is read back from its row, and when that says another
 * process has it (holdOf), its pipeline is aborted. The sweep takes back dead processes' runs.
 * Whether a run is lost is always read from its row, never from what its pipeline threw.
 */

/** A run this process executes, as its lease sees it. */
export interface HeldRun {
  run: ClaimedRun;
  controller: AbortController;
  /** the run is no longer ours (taken back, or handed back at shutdown): its end writes nothing */
  lost: boolean;
}

/** Whether `run`'s attempt still holds the run, by its row's fencing data (null: no such row). */
export function holdOf(row: Pick<RunState, "status" | "attempts" | "leaseOwner"> | null, run: { attempt: number }, owner: string): Hold {
  if (!row || row.attempts !== run.attempt) return "lost";
  if (row.status === "started") return row.leaseOwner === owner ? "held" : "lost";
  return isFinal(row.status) ? "finished" : "lost";
}

export const describeRow = (row: RunState | null) => (row ? `${row.status}, attempt ${row.attempts}, lease ${row.leaseOwner ?? "none"}` : "gone");

/** A random positive 63-bit key for this manager's liveness lock. */
const randomKey = (): bigint => randomBytes(8).readBigInt64BE() & 0x7fff_ffff_ffff_ffffn;

export interface LeaseOptions {
  db: Db;
  owner: string;
  leaseMs: number;
  retry: RetryPolicy;
  /** see RememberManagerOptions.liveness and .sole */
  liveness?: (key: bigint, opts: SessionLockOptions) => Promise<SessionLock | null>;
  sole?: boolean;
  /** see RememberManagerOptions.embeddingSpace: locked in shared mode with the liveness lock */
  embeddingSpace?: string;
  /** the runs this process executes, by id (the manager's) */
  running: ReadonlyMap<string, HeldRun>;
  log: (message: string, error?: unknown) => void;
}

export function createLeases(o: LeaseOptions) {
  const { db, owner, leaseMs, running, log } = o;
  const livenessKey = randomKey();
  /** takes the liveness lock; dropped when the database has none (PGlite) */
  let takeLiveness = o.liveness;
  let liveness: SessionLock | null = null;
  let livenessCheckedAt = 0;
  /** the sole process's one-time sweep of runs found started (see options.sole) */
  let recovered = false;
  let heartbeat: NodeJS.Timeout | null = null;
  let renewing = false;

  function lose(entry: HeldRun, row: RunState | null) {
    const { id, attempt } = entry.run;
    entry.lost = true;
    const now = describeRow(row);
    entry.controller.abort(new LeaseLostError(`this process lost remember run ${id} (attempt ${attempt}; the run is now ${now}); it stops without writing more`));
    log(`remember run ${id}: this process lost its lease while running it (now ${now}); its pipeline is stopped`);
  }

  async function renew() {
    if (renewing || running.size === 0) return;
    renewing = true;
    try {
      const renewed = await renewLeases(db, owner, leaseMs);
      for (const entry of running.values()) {
        if (entry.lost || renewed.get(entry.run.id) === entry.run.attempt) continue;
        // Not renewed: finished by its pipeline (the usual case at the end of a run), claimed
        // after this renewal, or taken back because our heartbeat came too late or our liveness
        // lock was lost. Its row says which.
        const row = await readRun(db, entry.run.id);
        if (running.has(entry.run.id) && !entry.lost && holdOf(row, entry.run, owner) === "lost") lose(entry, row);
      }
    } catch (e) {
      log("remember manager: renewing leases", e);
    } finally {
      renewing = false;
    }
  }

  return {
    /** Takes back every started run whose process is gone (with `sole`, at first, every run found started). */
    async sweep(): Promise<void> {
      try {
        if (o.sole && !recovered) {
          for (const r of await requeueAbandoned(db, o.retry, { all: true, exceptOwner: owner })) log(endedMessage(r, "abandoned"));
          recovered = true;
        }
        for (const r of await requeueAbandoned(db, o.retry, { exceptOwner: owner })) log(endedMessage(r, "abandoned"));
      } catch (e) {
        log("remember manager: taking back abandoned runs", e);
      }
    },

    /**
     * The liveness lock's key, taking the lock first if needed, and checking every leaseMs/3 that
     * its connection is still there (a lock lost with its connection is taken again). Null when
     * this database has no liveness locks (PGlite, or none asked for). Throws when it cannot be
     * taken: then claim nothing, or other processes would take our runs back at once.
     */
    async livenessKey(): Promise<bigint | null> {
      if (!takeLiveness) return null;
      if (liveness && Date.now() - livenessCheckedAt < leaseMs / 3) return liveness.key;
      if (liveness && !(await liveness.alive())) {
        log(`remember manager ${owner}: the connection of its liveness lock is gone; taking the lock again`);
        await liveness.release();
        liveness = null;
      }
      liveness ??= await takeLiveness(livenessKey, { shared: o.embeddingSpace === undefined ? [] : [o.embeddingSpace] });
      livenessCheckedAt = Date.now();
      if (!liveness) takeLiveness = undefined; // this database has none: leases alone
      return liveness?.key ?? null;
    },

    /** Whether this attempt still holds its run, read from the row. */
    async hold(run: ClaimedRun): Promise<{ hold: Hold; row: RunState | null }> {
      const row = await readRun(db, run.id);
      return { hold: holdOf(row, run, owner), row };
    },

    /** Renews our leases every leaseMs/3 while runs are in flight (idempotent). */
    startHeartbeat(): void {
      if (heartbeat) return;
      heartbeat = setInterval(() => void renew(), Math.max(1, Math.floor(leaseMs / 3)));
      heartbeat.unref();
    },

    stopHeartbeat(): void {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = null;
    },

    /** Lets go of the liveness lock (at stop). */
    async release(): Promise<void> {
      await liveness?.release();
      liveness = null;
    },
  };
}

export type Leases = ReturnType<typeof createLeases>;
