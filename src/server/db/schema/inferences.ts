import { index, integer, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import type { RunKind } from "../../../lib/stages";
import { ts } from "./columns";

/** One model call of either provider, filed under the run and stage that made it. */
export const inferences = pgTable(
  "gb_inferences",
  {
    datasetId: uuid("dataset_id").notNull(),
    id: uuid("id").notNull(),
    runKind: text("run_kind").$type<RunKind>(),
    runId: uuid("run_id"),
    stage: text("stage"),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    task: text("task").notNull(),
    request: jsonb("request"),
    response: jsonb("response"),
    tokensIn: integer("tokens_in"),
    tokensOut: integer("tokens_out"),
    latencyMs: integer("latency_ms").notNull(),
    error: text("error"),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.datasetId, t.id] }),
    // runs.inference.get by id alone (links from a run's stage table)
    index("gb_inferences_id_idx").on(t.id),
    // a run's inferences, for the run page and purge
    index("gb_inferences_run_idx").on(t.datasetId, t.runId),
  ],
);
