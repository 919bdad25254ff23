import { QueryStages, RememberStages, type RunKind, type StageDef } from "../../lib/stages";
import { queryRuns, rememberRuns } from "../db/schema";

/** Each run kind's table and stage list, for code that serves both logs the same way. */
export const runLogs = {
  remember: { table: rememberRuns, stages: RememberStages as readonly StageDef[], idField: "remember_run_id" },
  query: { table: queryRuns, stages: QueryStages as readonly StageDef[], idField: "query_run_id" },
} as const;

export type RunLogTable = (typeof runLogs)[RunKind]["table"];
