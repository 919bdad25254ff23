import { integer, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { ts } from "./columns";

/** What each stage of a run produced, per item, for debugging and receipts (runs.*.outputs). */
function stageOutputsTable(name: string) {
  return pgTable(
    name,
    {
      datasetId: uuid("dataset_id").notNull(),
      runId: uuid("run_id").notNull(),
      stage: text("stage").notNull(),
      /** the Each item (chunk index); 0 for a stage that runs once */
      itemIndex: integer("item_index").notNull(),
      output: jsonb("output").notNull(),
      /** when the stage began and ended on the item (the waterfall's item bars) */
      startedAt: ts("started_at").notNull(),
      finishedAt: ts("finished_at").notNull(),
      /** when it was written (a chunk's outputs go in with its store, after the item ended) */
      createdAt: ts("created_at").notNull(),
    },
    (t) => [primaryKey({ columns: [t.datasetId, t.runId, t.stage, t.itemIndex] })],
  );
}

export const rememberStageOutputs = stageOutputsTable("gb_remember_run_stage_outputs");
/** query's: which sources were retrieved, and which were given to the model (injection receipts) */
export const queryStageOutputs = stageOutputsTable("gb_query_run_stage_outputs");
