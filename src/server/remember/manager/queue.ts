import { type SQL, sql } from "drizzle-orm";
import { RememberStages } from "../../../lib/stages";
import type { Db } from "../../db/client";
import { queryRows } from "../../db/rows";
import type { ClaimedRun, FinalStatus } from "./types";

/*
 * The statements of the remember queue, on gb_remember_runs (the run log is the queue). Every
 * time is the database's clock (now()), never the process's, so that processes on different
 * hosts agree on when a lease expires.
 */

/**
 * Any advisory-lock key: claims from every process on the database take it for the length of
 * their (one-statement) transaction. See claimNext.
 */
const CLAIM_LOCK = sql`hashtext('gligabao remember queue claim')`;

const ms = (n: number) => sql`(${Math.round(n)}::int * interval '1 millisecond')`;

/**
 * SET items that fail every stage still `started` with `error` (an SQL expression, evaluated per
 * row): a stage that had already failed on an earlier item keeps its first error, as the run log
 * does. Generated from the stage table; in an UPDATE's SET, columns read the row's old values, so
 * every item tests the stage's status before this statement.
 */
function failStartedStages(error: SQL): SQL {
  return sql.join(
    RememberStages.map((s) => {
      const status = sql.raw(`"${s.name}_status"`);
      const started = sql`${status} = 'started'`;
      return sql`${status} = CASE WHEN ${started} THEN 'failed' ELSE ${status} END, ${sql.raw(`"${s.name}_error"`)} = CASE WHEN ${started} THEN COALESCE(${sql.raw(`"${s.name}_error"`)}, ${error}) ELSE ${sql.raw(`"${s.name}_error"`)} END, ${sql.raw(`"${s.name}_finished_at"`)} = CASE WHEN ${started} THEN now() ELSE ${sql.raw(`"${s.name}_finished_at"`)} END`;
    }),
    sql`, `,
  );
}

interface ClaimRow {
  id: string;
  dataset_id: string;
  seq: string | number;
  params: Record<string, unknown> | string;
}

/**
 * Claims the next run that may start, if any: the oldest queued run (by seq) of a dataset with no
 * started run, that is its dataset's oldest queued run. The row becomes `started` with our lease.
 *
 * Why this is safe between processes (READ COMMITTED, each statement its own snapshot):
 *
 * The claim is one UPDATE. Its subquery picks, in the statement's snapshot, only a run that is
 * the smallest queued seq of its dataset while no run of that dataset is started, and locks it
 * (FOR UPDATE SKIP LOCKED). Two claimers that pick the same run: one locks it, the other skips
 * it, and the skipped claimer cannot pick the dataset's next run instead, since in its snapshot
 * the locked run is still queued with a smaller seq. A claimer whose snapshot predates a claim
 * committed since: if it picks that same run, the row lock makes Postgres re-check the row's
 * newest version (EvalPlanQual), finds status 'started', and drops it (the outer `r.status =
 * 'queued'` says so again for the UPDATE itself); and it cannot pick any other run of that
 * dataset, because in its snapshot the claimed run is still queued and smaller. A stale snapshot
 * that shows a run started or queued that has since finished only delays work to the next poll.
 * Marking abandoned, the heartbeat and the run-log writes never make a run started. So two runs
 * of a dataset can only both be started if some run became visible after another claimer's
 * snapshot already showed a larger seq of its dataset queued: two submits to one dataset whose
 * INSERTs commit out of seq order (seq is taken at insert, commit comes after). The snapshot
 * cannot see that row, and the subquery's NOT EXISTS are not re-checked against it.
 *
 * That last race is closed by serialising claims: the UPDATE runs in a transaction that first
 * takes a transaction-scoped advisory lock (one key for the database). Under READ COMMITTED the
 * UPDATE's snapshot is taken after the lock is granted, so after the previous claimer committed:
 * it sees every earlier claim, and "no started run in the dataset" is true when it runs. Two
 * submits racing like that may run in either order, which nobody can tell apart from submission
 * order. A claim is a few milliseconds; a process killed while holding the lock drops its
 * connection, and with it the lock. `lock_timeout` bounds the wait if a claimer hangs.
 *
 * PGlite (one connection) runs the same statements; the lock is then uncontended.
 */
export async function claimNext(db: Db, owner: string, leaseMs: number): Promise<ClaimedRun | null> {
  const rows = await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT set_config('lock_timeout', '10s', true), pg_advisory_xact_lock(${CLAIM_LOCK})`);
    return queryRows<ClaimRow>(
      tx as unknown as Db,
      sql`
        UPDATE gb_remember_runs r
        SET status = 'started', started_at = clock_timestamp(), lease_owner = ${owner}, lease_expires_at = now() + ${ms(leaseMs)}
        WHERE (r.dataset_id, r.id) = (
          SELECT q.dataset_id, q.id FROM gb_remember_runs q
          WHERE q.status = 'queued'
            AND NOT EXISTS (SELECT 1 FROM gb_remember_runs s WHERE s.dataset_id = q.dataset_id AND s.status = 'started')
            AND NOT EXISTS (SELECT 1 FROM gb_remember_runs e WHERE e.dataset_id = q.dataset_id AND e.status = 'queued' AND e.seq < q.seq)
          ORDER BY q.seq
          LIMIT 1
          FOR UPDATE OF q SKIP LOCKED
        )
        AND r.status = 'queued'
        RETURNING r.id, r.dataset_id, r.seq, r.params`,
    );
  });
  const row = rows[0];
  if (!row) return null;
  const params = typeof row.params === "string" ? (JSON.parse(row.params) as Record<string, unknown>) : row.params;
  return { id: row.id, datasetId: row.dataset_id, seq: Number(row.seq), params };
}

/** Renews the lease of every run this owner holds; returns the ids still held. */
export async function renewLeases(db: Db, owner: string, leaseMs: number): Promise<Set<string>> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE gb_remember_runs SET lease_expires_at = now() + ${ms(leaseMs)}
        WHERE status = 'started' AND lease_owner = ${owner}
        RETURNING id`,
  );
  return new Set(rows.map((r) => r.id));
}

/** The error of a run whose lease expired, from the row's own lease_expires_at (ISO 8601, UTC, like Date#toISOString). */
const abandonedError = sql`'abandoned: the process running it stopped (lease expired at ' || to_char(lease_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || ')'`;

/**
 * Marks failed every started run whose lease expired, and its started stages with it. Queued runs
 * have no lease and are never touched. Safe when several processes sweep at once, or a heartbeat
 * races the sweep: both lock the row, and the loser re-checks `status = 'started' AND
 * lease_expires_at < now()` on the winner's version. Started runs without a lease (not from the
 * queue) are left alone.
 */
export async function failAbandoned(db: Db): Promise<{ id: string; datasetId: string; error: string }[]> {
  const rows = await queryRows<{ id: string; dataset_id: string; error: string }>(
    db,
    sql`UPDATE gb_remember_runs
        SET status = 'failed', error = ${abandonedError}, finished_at = now(), ${failStartedStages(abandonedError)}
        WHERE status = 'started' AND lease_expires_at < now()
        RETURNING id, dataset_id, error`,
  );
  return rows.map((r) => ({ id: r.id, datasetId: r.dataset_id, error: r.error }));
}

const MAX_ERROR = 4000;

/**
 * Marks a run this owner holds failed with `error`, if it is still started (execute threw, or
 * returned without finishing the run log). Returns whether it did.
 */
export async function failIfStarted(db: Db, run: { id: string; datasetId: string }, owner: string, error: string): Promise<boolean> {
  const e = sql`${error.slice(0, MAX_ERROR)}::text`;
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE gb_remember_runs
        SET status = 'failed', error = ${e}, finished_at = now(), ${failStartedStages(e)}
        WHERE dataset_id = ${run.datasetId} AND id = ${run.id} AND status = 'started' AND lease_owner = ${owner}
        RETURNING id`,
  );
  return rows.length > 0;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A run's status and error, by id alone; null if there is no such run (or the id is no uuid). */
export async function readRun(db: Db, id: string): Promise<{ status: string; error: string | null } | null> {
  if (!UUID.test(id)) return null;
  const rows = await queryRows<{ status: string; error: string | null }>(
    db,
    sql`SELECT status, error FROM gb_remember_runs WHERE id = ${id} LIMIT 1`,
  );
  return rows[0] ?? null;
}

export const isFinal = (status: string): status is FinalStatus => status === "succeeded" || status === "failed";
