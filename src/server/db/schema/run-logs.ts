import { desc, type SQL, sql } from "drizzle-orm";
import { type AnyPgColumn, bigint, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { QueryStages, RememberStages, type StageDef } from "../../../lib/stages";
import {
  ts,
  inferenceIdsColumn,
  runColumns,
  stageErrorColumn,
  stageStatusColumn,
  stageTimeColumn,
} from "./columns";

/*
 * The run-log tables, generated from the stage tables: one column group per stage
 * (`<stage>_status`, `_error`, `_started_at`, `_finished_at`, and `_inference_ids` for model
 * stages). The mapped type keeps every generated column name typed, so a typo is a compile
 * error. Each table is built once, here, at module load (drizzle-orm #4209).
 */

type Defs = readonly StageDef[];
type ModelName<S extends Defs> = Extract<S[number], { model: true }>["name"];

export type StageColumns<S extends Defs> = {
  [N in S[number]["name"] as `${N}_status`]: ReturnType<typeof stageStatusColumn>;
} & {
  [N in S[number]["name"] as `${N}_error`]: ReturnType<typeof stageErrorColumn>;
} & {
  [N in S[number]["name"] as `${N}_started_at` | `${N}_finished_at`]: ReturnType<typeof stageTimeColumn>;
} & {
  [N in ModelName<S> as `${N}_inference_ids`]: ReturnType<typeof inferenceIdsColumn>;
};

export function stageColumns<const S extends Defs>(stages: S): StageColumns<S> {
  const columns: Record<string, unknown> = {};
  for (const s of stages) {
    columns[`${s.name}_status`] = stageStatusColumn();
    columns[`${s.name}_error`] = stageErrorColumn();
    columns[`${s.name}_started_at`] = stageTimeColumn();
    columns[`${s.name}_finished_at`] = stageTimeColumn();
    if (s.model) columns[`${s.name}_inference_ids`] = inferenceIdsColumn();
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

/**
 * The remember log is also the remember queue (the remember manager): submission order, and the
 * lease of the process running a started run, so that a run whose process died is detected.
 */
export const rememberRuns = pgTable(
  "gb_remember_runs",
  {
    ...runColumns(),
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity().notNull(),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: ts("lease_expires_at"),
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
  ],
);

export const queryRuns = pgTable("gb_query_runs", { ...runColumns(), ...stageColumns(QueryStages) }, (t) =>
  runLogKeys("gb_query_runs", t),
);

export type RememberRunRow = typeof rememberRuns.$inferSelect;
export type QueryRunRow = typeof queryRuns.$inferSelect;

/** SQL that is true when any stage of the table failed (for the "flagged" filter). */
export function anyStageFailed(stages: Defs, tableName: string): SQL {
  return sql.raw(
    "(" + stages.map((s) => `"${tableName}"."${s.name}_status" = 'failed'`).join(" OR ") + ")",
  );
}
