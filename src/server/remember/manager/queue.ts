import { type SQL, sql } from "drizzle-orm";
import { RememberStages } from "../../../lib/stages";
import { type Db, sharedLockKey } from "../../db/client";
import { column, queryRows, rowDecoder } from "../../db/rows";
import { failStartedSql } from "../../db/schema/stage-group";
import { MAX_ERROR } from "../../errors";
import type { AttemptKind, ClaimedRun, FinalStatus, RetryPolicy } from "./types";

/*
 * The statements of the remember queue, on gb_remember_runs (the run log is the queue). Every
 * time is the database's clock (now()), never the process's, so that processes on different
 * hosts agree on when a lease expires or a backoff ends.
 *
 * A run's life: queued → started (claimed: attempts + 1, a lease) → succeeded, or the attempt
 * ends (endAttempt, requeueAbandoned): back to queued with a backoff (retry_at) while its failed
 * attempts stay under the maximum, or failed with every attempt's reason. The attempt number is
 * the fencing token: only the claim that set it may write the run (run log, store, its end).
 */

/**
 * Any advisory-lock key: claims from every process on the database take it for the length of
 * their (one-statement) transaction. See claimNext.
 */
const CLAIM_LOCK = sql`hashtext('gligabao remember queue claim')`;

const ms = (n: number) => sql`(${Math.round(n)}::int * interval '1 millisecond')`;

/**
 * The SET of a run whose attempt ended without success, per row (old values on the right):
 * `kind` and `error` are SQL text expressions. The attempt joins attempt_errors. A handed-back
 * attempt (shutdown) is not counted and the run may be claimed at once; a counted one (abandoned,
 * transient) waits min(maxMs, baseMs · 2^(k−1)) ± 25 % after its k-th failure, unless it was the
 * last allowed; a permanent one, or the last, fails the run with every attempt's reason. A run
 * abandoned for the first time is claimable at once: its process died, and the dataset's queue
 * has waited long enough; backoff is for runs that keep failing.
 */
function endAttemptSet(kind: SQL, error: SQL, retry: RetryPolicy): SQL {
  const entry = sql`jsonb_build_object('attempt', attempts, 'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'kind', ${kind}, 'error', ${error})`;
  const counts = sql`(${kind} <> 'handed_back')`;
  const givesUp = sql`(${kind} = 'permanent' OR (${counts} AND failed_attempts + 1 >= ${retry.maxAttempts}::int))`;
  // one attempt: its own error; several: each, numbered, oldest first
  const finalError = sql`CASE WHEN jsonb_array_length(attempt_errors) = 0 THEN left(${error}, ${MAX_ERROR}::int)
    ELSE left('failed after ' || attempts || ' attempts: ' || (
      SELECT string_agg('[' || (e ->> 'attempt') || ' ' || (e ->> 'kind') || '] ' || (e ->> 'error'), '; ' ORDER BY i)
      FROM jsonb_array_elements(attempt_errors || jsonb_build_array(${entry})) WITH ORDINALITY AS x(e, i)), ${MAX_ERROR}::int) END`;
  const backoff = sql`least(${retry.maxMs}::float8, ${retry.baseMs}::float8 * power(2, failed_attempts)) * (0.75 + random() * 0.5) * interval '1 millisecond'`;
  return sql`
    status = CASE WHEN ${givesUp} THEN 'failed' ELSE 'queued' END,
    error = CASE WHEN ${givesUp} THEN ${finalError} ELSE NULL END,
    finished_at = CASE WHEN ${givesUp} THEN now() ELSE NULL END,
    retry_at = CASE WHEN ${givesUp} OR NOT ${counts} OR (${kind} = 'abandoned' AND failed_attempts = 0) THEN NULL ELSE now() + ${backoff} END,
    failed_attempts = failed_attempts + CASE WHEN ${counts} THEN 1 ELSE 0 END,
    attempt_errors = attempt_errors || jsonb_build_array(${entry}),
    ${failStartedSql(RememberStages, error)}`;
}

const claimRow = rowDecoder({
  id: column.text,
  dataset_id: column.text,
  seq: column.int,
  params: column.json<Record<string, unknown>>(),
  attempts: column.int,
  embedding_space: column.nullable(column.text),
});

/**
 * True for a queued run that a process of `space`'s embeddings may claim: its own, one queued
 * before they were recorded, or one whose embeddings no live process holds (in pg_locks: each
 * process holds its embeddings' name in shared mode beside its liveness lock, leases.ts). So a
 * run is stored with the embeddings its submitter searches with while a process of those runs,
 * and by whoever is left once none does (a configuration changed since it was queued).
 */
function claimableBy(space: string): SQL {
  const key = sharedLockKey(sql`q.embedding_space`);
  return sql`(q.embedding_space IS NULL OR q.embedding_space = ${space} OR NOT EXISTS (
    SELECT 1 FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND l.classid = ((${key} >> 32) & 4294967295)::oid AND l.objid = (${key} & 4294967295)::oid))`;
}

/**
 * Claims the next run that may start, if any: the oldest queued run (by seq) of a dataset with no
 * started run, that is its dataset's oldest queued run and whose backoff (retry_at) is over. The
 * row becomes `started` with our lease, its attempt counter one higher (the new fencing token),
 * and our liveness lock's key (Postgres).
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
 * So two runs of a dataset can only both be started if some run became visible after another
 * claimer's snapshot already showed a larger seq of its dataset queued: two submits to one
 * dataset whose INSERTs commit out of seq order (seq is taken at insert, commit comes after). The
 * snapshot cannot see that row, and the subquery's NOT EXISTS are not re-checked against it.
 *
 * That last race is closed by serialising claims: the UPDATE runs in a transaction that first
 * takes a transaction-scoped advisory lock (one key for the database). Under READ COMMITTED the
 * UPDATE's snapshot is taken after the lock is granted, so after the previous claimer committed:
 * it sees every earlier claim, and "no started run in the dataset" is true when it runs. Two
 * submits racing like that may run in either order, which nobody can tell apart from submission
 * order. A claim is a few milliseconds; a process killed while holding the lock drops its
 * connection, and with it the lock. `lock_timeout` bounds the wait if a claimer hangs.
 *
 * A run waiting out its backoff keeps its place: the runs of its dataset behind it wait too, so
 * that a dataset's runs are always stored in submission order.
 *
 * PGlite (one connection) runs the same statements; the lock is then uncontended.
 */
export async function claimNext(db: Db, owner: string, leaseMs: number, livenessKey: bigint | null, embeddingSpace?: string): Promise<ClaimedRun | null> {
  const lock = livenessKey === null ? sql`NULL` : sql`${livenessKey.toString()}::bigint`;
  // where processes hold their embeddings' lock (Postgres: with the liveness lock); PGlite has one process
  const claimable = livenessKey !== null && embeddingSpace !== undefined ? claimableBy(embeddingSpace) : sql`TRUE`;
  const rows = await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT set_config('lock_timeout', '10s', true), pg_advisory_xact_lock(${CLAIM_LOCK})`);
    return queryRows(
      tx as unknown as Db,
      sql`
        UPDATE gb_remember_runs r
        SET status = 'started', started_at = clock_timestamp(), lease_owner = ${owner}, lease_expires_at = now() + ${ms(leaseMs)},
            lease_lock = ${lock}, attempts = r.attempts + 1, retry_at = NULL
        WHERE (r.dataset_id, r.id) = (
          -- each dataset's oldest queued run, found dataset by dataset in the queue's index
          -- (dataset_id, seq): a few index probes a dataset, however many runs are queued. Without
          -- them, a plan made on statistics taken before a backlog was queued (PGlite's until its
          -- next ANALYZE) ran the two NOT EXISTS for every queued run: with 1,600 queued in 4
          -- datasets a claim took 42 ms on the server and 66 on PGlite, against 2.5 and 3.4 now
          WITH RECURSIVE heads(dataset_id, seq) AS (
            (SELECT h.dataset_id, h.seq FROM gb_remember_runs h WHERE h.status = 'queued' ORDER BY h.dataset_id, h.seq LIMIT 1)
            UNION ALL
            SELECT n.dataset_id, n.seq FROM heads p CROSS JOIN LATERAL (
              SELECT h.dataset_id, h.seq FROM gb_remember_runs h WHERE h.status = 'queued' AND h.dataset_id > p.dataset_id ORDER BY h.dataset_id, h.seq LIMIT 1
            ) n
          )
          SELECT q.dataset_id, q.id FROM gb_remember_runs q
          WHERE q.status = 'queued'
            AND q.seq = ANY (ARRAY(SELECT seq FROM heads))
            AND (q.retry_at IS NULL OR q.retry_at <= now())
            AND NOT EXISTS (SELECT 1 FROM gb_remember_runs s WHERE s.dataset_id = q.dataset_id AND s.status = 'started')
            AND NOT EXISTS (SELECT 1 FROM gb_remember_runs e WHERE e.dataset_id = q.dataset_id AND e.status = 'queued' AND e.seq < q.seq)
            AND ${claimable}
          ORDER BY q.seq
          LIMIT 1
          FOR UPDATE OF q SKIP LOCKED
        )
        AND r.status = 'queued'
        RETURNING r.id, r.dataset_id, r.seq, r.params, r.attempts, r.embedding_space`,
      claimRow,
    );
  });
  const row = rows[0];
  if (!row) return null;
  return { id: row.id, datasetId: row.dataset_id, seq: row.seq, params: row.params, attempt: row.attempts, embeddingSpace: row.embedding_space };
}

/** Renews the lease of every run this owner holds; returns the attempt held of each, by id. */
export async function renewLeases(db: Db, owner: string, leaseMs: number): Promise<Map<string, number>> {
  const rows = await queryRows<{ id: string; attempts: number }>(
    db,
    sql`UPDATE gb_remember_runs SET lease_expires_at = now() + ${ms(leaseMs)}
        WHERE status = 'started' AND lease_owner = ${owner}
        RETURNING id, attempts`,
  );
  return new Map(rows.map((r) => [r.id, Number(r.attempts)]));
}

/**
 * True for a started run whose claimer's liveness lock (a session advisory lock on the key in
 * lease_lock, Postgres) no session holds any more: the process died, or lost its connection. A
 * bigint key shows in pg_locks as classid (high 32 bits), objid (low 32 bits), objsubid 1.
 */
const livenessGone = sql`(lease_lock IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM pg_locks l
  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.classid = ((lease_lock >> 32) & 4294967295)::oid AND l.objid = (lease_lock & 4294967295)::oid))`;

const expiredAt = sql`to_char(lease_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export interface EndedRun {
  id: string;
  datasetId: string;
  /** queued again (to be retried) or failed (no attempts left) */
  status: "queued" | "failed";
  /** this attempt's reason */
  reason: string;
  /** the run's error once failed */
  error: string | null;
}

/**
 * Takes back every started run whose process is gone, as a failed attempt ("abandoned"): its
 * lease expired (no heartbeat), or (Postgres) its claimer's liveness lock is gone, which shows a
 * dead process at once; with `all`, every started run (PGlite at start-up: one process owns the
 * database, so a run found started belongs to a process that died). Runs held by `exceptOwner`
 * (the caller's own, which it knows are alive) are left alone. Safe when several processes sweep
 * at once or a heartbeat races the sweep: both lock the row, and the loser re-checks the WHERE
 * on the winner's version.
 */
export async function requeueAbandoned(db: Db, retry: RetryPolicy, opts: { all?: boolean; exceptOwner?: string } = {}): Promise<EndedRun[]> {
  const reason = sql`CASE
    WHEN lease_expires_at < now() THEN 'abandoned: the process running it stopped (lease expired at ' || ${expiredAt} || ')'
    WHEN ${livenessGone} THEN 'abandoned: the process running it stopped (its database session ended)'
    ELSE 'abandoned: the process running it stopped (found started when the app started)' END`;
  const which = opts.all ? sql`TRUE` : sql`(lease_expires_at < now() OR ${livenessGone})`;
  const mine = opts.exceptOwner === undefined ? sql`TRUE` : sql`lease_owner IS DISTINCT FROM ${opts.exceptOwner}`;
  const rows = await queryRows<{ id: string; dataset_id: string; status: "queued" | "failed"; reason: string; error: string | null }>(
    db,
    sql`WITH gone AS (
          SELECT dataset_id, id, ${reason} AS reason FROM gb_remember_runs
          WHERE status = 'started' AND ${which} AND ${mine}
          FOR UPDATE
        )
        UPDATE gb_remember_runs r SET ${endAttemptSet(sql`'abandoned'`, sql`gone.reason`, retry)}
        FROM gone
        WHERE r.dataset_id = gone.dataset_id AND r.id = gone.id AND r.status = 'started'
        RETURNING r.id, r.dataset_id, r.status, gone.reason, r.error`,
  );
  return rows.map((r) => ({ id: r.id, datasetId: r.dataset_id, status: r.status, reason: r.reason, error: r.error }));
}

/**
 * Ends the attempt `run.attempt` of a run this process holds: `permanent` fails it; `transient`
 * and `abandoned` queue it again with a backoff (or fail it, past the maximum); `handed_back`
 * queues it again at once, uncounted. A no-op (null) when that attempt no longer holds the run.
 */
export async function endAttempt(
  db: Db,
  run: { id: string; datasetId: string; attempt: number },
  kind: AttemptKind,
  error: string,
  retry: RetryPolicy,
): Promise<EndedRun | null> {
  const e = sql`${error.slice(0, MAX_ERROR)}::text`;
  const rows = await queryRows<{ id: string; dataset_id: string; status: "queued" | "failed"; error: string | null }>(
    db,
    sql`UPDATE gb_remember_runs SET ${endAttemptSet(sql`${kind}::text`, e, retry)}
        WHERE dataset_id = ${run.datasetId} AND id = ${run.id} AND status = 'started' AND attempts = ${run.attempt}
        RETURNING id, dataset_id, status, error`,
  );
  const r = rows[0];
  return r ? { id: r.id, datasetId: r.dataset_id, status: r.status, reason: error, error: r.error } : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface RunState {
  status: string;
  error: string | null;
  attempts: number;
  /** who holds (or last held) the run's lease: with status and attempts, the run's fencing data */
  leaseOwner: string | null;
}

/** A run's status, error, attempt and lease owner, by id alone; null if there is no such run (or the id is no uuid). */
export async function readRun(db: Db, id: string): Promise<RunState | null> {
  if (!UUID.test(id)) return null;
  const rows = await queryRows<RunState>(db, sql`SELECT status, error, attempts, lease_owner AS "leaseOwner" FROM gb_remember_runs WHERE id = ${id} LIMIT 1`);
  const r = rows[0];
  return r ? { ...r, attempts: Number(r.attempts) } : null;
}

/**
 * Inside a transaction that writes what a run produced: locks the run's row (FOR SHARE) if this
 * attempt still holds it, and says whether it does. Taking the run back (a sweep, a shutdown
 * hand-back) updates that row, so it waits for the transaction; and once the run is taken back,
 * this finds another attempt and the transaction writes nothing. A stale process can never write.
 */
export async function holdsRun(tx: Db, run: { id: string; datasetId: string; attempt: number }): Promise<boolean> {
  const rows = await queryRows<{ ok: number }>(tx, heldRun(run));
  return rows.length > 0;
}

/**
 * The fencing check as a query, for a statement that writes only while the attempt holds the run
 * (store puts it in a CTE that every write is conditional on): one row when it does, locked.
 */
export function heldRun(run: { id: string; datasetId: string; attempt: number }): SQL {
  return sql`SELECT 1 AS ok FROM gb_remember_runs
      WHERE dataset_id = ${run.datasetId} AND id = ${run.id} AND status = 'started' AND attempts = ${run.attempt}
      FOR SHARE`;
}

export const isFinal = (status: string): status is FinalStatus => status === "succeeded" || status === "failed";
