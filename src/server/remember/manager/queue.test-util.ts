import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { inject } from "vitest";
import type { Database, Db } from "../../db/client";
import { openDatabase } from "../../db/client";
import { migrate } from "../../db/migrate";
import { column, queryRows, rowDecoder } from "../../db/rows";
import { createScratchDatabase } from "../../db/scratch";
import { createDataset } from "../../datasets/datasets";
import { LOCAL_CALLER } from "../../auth/caller";
import { attachRunLog, createQueuedRun } from "../../runs/run-log";
import type { ClaimedRun } from "./types";

/*
 * Helpers of the remember manager tests. A manager claims any queued run of its database, so on
 * the shared Postgres server of the test run these tests use a database of their own (made from
 * the run's database URL, migrated, dropped after): another test file's queued runs must not be
 * executed by a test manager here, nor ours by its managers.
 */

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function privateServerDatabase(): Promise<{ database: Database; url: string; drop(): Promise<void> }> {
  const pgUrl = inject("pgUrl");
  if (!pgUrl) throw new Error("no Postgres server for this run (TEST_DATABASE_URL unset)");
  const scratch = await createScratchDatabase(pgUrl, "gb_test_queue");
  const database = await migrate(await openDatabase({ driver: "postgres", url: scratch.url, max: 6 }));
  return {
    database,
    url: scratch.url,
    drop: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

export async function newDataset(db: Db): Promise<string> {
  const ds = await createDataset({ db, caller: LOCAL_CALLER, input: { name: `queue-${randomUUID().slice(0, 8)}` } });
  return ds.id;
}

/**
 * Queues `n` runs in each dataset, interleaved (d0 r0, d1 r0, ..., d0 r1, ...) or in blocks (d0 r0,
 * d0 r1, ..., d1 r0, ...); returns the ids per dataset in submission order.
 */
export async function queueRuns(db: Db, datasetIds: string[], n: number, order: "interleaved" | "blocks" = "interleaved"): Promise<Map<string, string[]>> {
  const ids = new Map(datasetIds.map((d) => [d, [] as string[]]));
  const submit = async (datasetId: string, k: number) =>
    ids.get(datasetId)?.push(await createQueuedRun(db, "remember", { datasetId, userId: null, params: { k } }));
  if (order === "blocks") {
    for (const datasetId of datasetIds) for (let k = 0; k < n; k++) await submit(datasetId, k);
  } else {
    for (let k = 0; k < n; k++) for (const datasetId of datasetIds) await submit(datasetId, k);
  }
  return ids;
}

export interface Execution {
  id: string;
  datasetId: string;
  seq: number;
  params: Record<string, unknown>;
  start: number;
  end: number;
}

/**
 * An `execute` like the pipeline's: starts a stage in the run log, works `ms`, ends the stage
 * and finishes the run. Records each execution (start/end from performance.now(), end taken
 * before the run is finished, so a later claim of the dataset's next run comes after it) and the
 * most executions at once. `fail(run)` returning a message (or an error) makes it throw that
 * instead of finishing.
 */
export function recorder(db: Db, opts: { ms?: number; fail?: (run: ClaimedRun) => string | Error | undefined } = {}) {
  const runs: Execution[] = [];
  const started: ClaimedRun[] = [];
  let live = 0;
  let maxLive = 0;
  const execute = async (run: ClaimedRun) => {
    const start = performance.now();
    started.push(run);
    live++;
    maxLive = Math.max(maxLive, live);
    const log = attachRunLog(db, "remember", run);
    try {
      await log.start("classify_complexity");
      await sleep(opts.ms ?? 30);
      const failure = opts.fail?.(run);
      if (failure !== undefined) throw typeof failure === "string" ? new Error(failure) : failure;
      log.done("classify_complexity", null);
    } finally {
      live--;
      runs.push({ ...run, start, end: performance.now() });
    }
    await log.finish(null);
  };
  return {
    execute,
    runs,
    started,
    get maxLive() {
      return maxLive;
    },
  };
}

const runRowDecoder = rowDecoder({
  id: column.text,
  dataset_id: column.text,
  seq: column.int,
  status: column.text,
  error: column.nullable(column.text),
  lease_owner: column.nullable(column.text),
  lease_expires_at: column.nullable(column.timestamp),
  started_at: column.nullable(column.timestamp),
  finished_at: column.nullable(column.timestamp),
  classify_complexity_status: column.text,
  classify_complexity_error: column.nullable(column.text),
  classify_complexity_finished_at: column.nullable(column.timestamp),
  chunk_text_status: column.text,
  chunk_text_error: column.nullable(column.text),
  attempts: column.int,
  failed_attempts: column.int,
  attempt_errors: column.json<{ attempt: number; at: string; kind: string; error: string }[]>(),
  retry_at: column.nullable(column.timestamp),
});
export type RunRow = ReturnType<typeof runRowDecoder>;

/** The queue columns of these runs, by id. */
export async function runRows(db: Db, ids: string[]): Promise<Map<string, RunRow>> {
  const rows = await queryRows(
    db,
    sql`SELECT id, dataset_id, seq, status, error, lease_owner, lease_expires_at, started_at, finished_at,
               classify_complexity_status, classify_complexity_error, classify_complexity_finished_at,
               chunk_text_status, chunk_text_error, attempts, failed_attempts, attempt_errors, retry_at
        FROM gb_remember_runs WHERE id IN (${sql.join(
          ids.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})`,
    runRowDecoder,
  );
  return new Map(rows.map((r) => [r.id, r]));
}

export async function runRow(db: Db, id: string): Promise<RunRow> {
  const row = (await runRows(db, [id])).get(id);
  if (!row) throw new Error(`no run ${id}`);
  return row;
}

/** Polls `check` until it returns a value other than undefined/false; throws after timeoutMs. */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Leaves no run queued or started (so that the next test's manager finds none of ours). */
export async function drainQueue(db: Db): Promise<void> {
  await db.execute(
    sql`UPDATE gb_remember_runs SET status = 'failed', error = 'test cleanup', finished_at = now() WHERE status IN ('queued', 'started')`,
  );
}
