import { desc, sql } from "drizzle-orm";
import { type AnyPgColumn, bigint, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { QueryStages, RememberStages, type StageDef } from "../../../lib/stages";
import {
  ts,
  inferenceIdsColumn,
  runColumns,
  stageErrorColumn,
  stageStatusColumn,
  stageTimeColumn,
} from "./columns";
import { type ErrorKey, groupKeys, type InferenceIdsKey, type StatusKey, type TimeKey } from "./stage-group";

/*
 * The run-log tables, generated from the stage tables: one column group per stage (its columns
 * and what they mean: stage-group.ts). The mapped type keeps every generated column name typed,
 * so a typo is a compile error. Each table is built once, here, at module load (drizzle-orm #4209).
 */

type Defs = readonly StageDef[];
type ModelName<S extends Defs> = Extract<S[number], { model: true }>["name"];

export type StageColumns<S extends Defs> = {
  [N in S[number]["name"] as StatusKey<N>]: ReturnType<typeof stageStatusColumn>;
} & {
  [N in S[number]["name"] as ErrorKey<N>]: ReturnType<typeof stageErrorColumn>;
} & {
  [N in S[number]["name"] as TimeKey<N>]: ReturnType<typeof stageTimeColumn>;
} & {
  [N in ModelName<S> as InferenceIdsKey<N>]: ReturnType<typeof inferenceIdsColumn>;
};

export function stageColumns<const S extends Defs>(stages: S): StageColumns<S> {
  const columns: Record<string, unknown> = {};
  for (const s of stages) {
    const k = groupKeys(s);
    columns[k.status] = stageStatusColumn();
    columns[k.error] = stageErrorColumn();
    columns[k.startedAt] = stageTimeColumn();
    columns[k.finishedAt] = stageTimeColumn();
    if (k.inferenceIds) columns[k.inferenceIds] = inferenceIdsColumn();
  }
  // Built key by key above from the same names the mapped type is built from.
  return columns as StageColumns<S>;
}

interface RunKeyColumns {
  datasetId: AnyPgColumn;
  id: AnyPgColumn;
  createdAt: AnyPgColumn;
  status: AnyPgColumn;
}

/** The keys and indexes every run-log table has. */
function runLogKeys(name: string, t: RunKeyColumns) {
  return [
    primaryKey({ columns: [t.datasetId, t.id] }),
    // runs.*.get by id alone
    index(`${name}_id_idx`).on(t.id),
    // runs.*.list: a dataset's runs newest first, cursor on (created_at, id)
    index(`${name}_list_idx`).on(t.datasetId, desc(t.createdAt), desc(t.id)),
    // runs.*.list filtered by status, and counts by status
    index(`${name}_status_idx`).on(t.datasetId, t.status, desc(t.createdAt)),
  ];
}

/** One ended attempt of a remember run that did not succeed (gb_remember_runs.attempt_errors). */
export interface AttemptError {
  attempt: number;
  /** ISO time it ended */
  at: string;
  /** abandoned (its process died), transient (a model or database outage), permanent, handed_back (shutdown) */
  kind: "abandoned" | "transient" | "permanent" | "handed_back";
  error: string;
}

/**
 * The remember log is also the remember queue (the remember manager): submission order, the
 * lease of the process running a started run (so that a run whose process died is detected), its
 * attempts, and the client's idempotency key.
 */
export const rememberRuns = pgTable(
  "gb_remember_runs",
  {
    ...runColumns(),
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity().notNull(),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: ts("lease_expires_at"),
    /**
     * The claimer's liveness lock (a session advisory lock it holds while alive, Postgres only):
     * when no session holds it any more, the process died and the run is taken back at once.
     */
    leaseLock: bigint("lease_lock", { mode: "bigint" }),
    /** claims so far; also the fencing token of the current claim (writes check it) */
    attempts: integer("attempts").notNull().default(0),
    /** attempts that ended in an error that counts toward GB_REMEMBER_MAX_ATTEMPTS */
    failedAttempts: integer("failed_attempts").notNull().default(0),
    /** every attempt that did not succeed, oldest first */
    attemptErrors: jsonb("attempt_errors").$type<AttemptError[]>().notNull().default([]),
    /** a queued run waiting out its backoff is not claimed before this */
    retryAt: ts("retry_at"),
    /** the client's key: the same key in the same dataset is the same run */
    idempotencyKey: text("idempotency_key"),
    /** what the key was used for (sha-256 of the request), to refuse a key reused for another text */
    idempotencyHash: text("idempotency_hash"),
    /**
     * The embeddings of the process that submitted the run ("builtin", or "openai <model> <dims>":
     * embeddingSpace, models/factory.ts). A process of other embeddings claims it only while no
     * process of these holds their lock (remember/manager/queue.ts, claimNext): a builtin worker
     * would store a run an openai process submitted without the vectors its queries search.
     * Null for runs queued before it was recorded: any process claims those.
     */
    embeddingSpace: text("embedding_space"),
    ...stageColumns(RememberStages),
  },
  (t) => [
    ...runLogKeys("gb_remember_runs", t),
    // the queue: each dataset's next queued run, in submission order
    index("gb_remember_runs_queued_idx").on(t.datasetId, t.seq).where(sql`status = 'queued'`),
    // the queue: the oldest queued runs of all datasets, for the claim's ORDER BY seq
    index("gb_remember_runs_queued_seq_idx").on(t.seq).where(sql`status = 'queued'`),
    // the queue: started runs, to find a dataset's running one and expired leases
    index("gb_remember_runs_started_idx").on(t.datasetId, t.leaseExpiresAt).where(sql`status = 'started'`),
    // remember.submit with an idempotency key: one run per key and dataset
    uniqueIndex("gb_remember_runs_idempotency_idx").on(t.datasetId, t.idempotencyKey).where(sql`idempotency_key IS NOT NULL`),
  ],
);

export const queryRuns = pgTable("gb_query_runs", { ...runColumns(), ...stageColumns(QueryStages) }, (t) =>
  runLogKeys("gb_query_runs", t),
);

export type RememberRunRow = typeof rememberRuns.$inferSelect;
export type QueryRunRow = typeof queryRuns.$inferSelect;
