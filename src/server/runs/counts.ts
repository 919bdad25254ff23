import { count, eq, getTableName, sql } from "drizzle-orm";
import { type RunKind, RunStatuses, type RunStatus } from "../../lib/stages";
import type { Db } from "../db/client";
import { anyStageFailedSql } from "../db/schema/stage-group";
import type { Scope } from "../auth/caller";
import { resolveDataset } from "../datasets/datasets";
import type { CountRunsInput } from "./schemas";
import { runLogs } from "./tables";

export type RunCounts = Record<RunStatus, number> & {
  /** succeeded with a failed (advisory) stage; counted among `succeeded` too */
  flagged: number;
};

/**
 * runs.*.counts: a dataset's runs per status and how many are flagged, for the tiles of the run
 * views. One grouped scan of the dataset's rows (the status index serves the grouping).
 */
export async function countRuns({ db, scope, kind, input }: { db: Db; scope: Scope; kind: RunKind; input: CountRunsInput }): Promise<RunCounts> {
  const { table, stages } = runLogs[kind];
  const dataset = await resolveDataset(db, input.dataset, scope);
  const failedStage = anyStageFailedSql(stages, getTableName(table));
  const rows = await db
    .select({ status: table.status, n: count(), flagged: sql<number>`count(*) FILTER (WHERE ${failedStage})` })
    .from(table)
    .where(eq(table.datasetId, dataset.id))
    .groupBy(table.status);
  const counts = Object.fromEntries([...RunStatuses, "flagged"].map((s) => [s, 0])) as RunCounts;
  for (const r of rows) {
    counts[r.status] = Number(r.n);
    if (r.status === "succeeded") counts.flagged = Number(r.flagged);
  }
  return counts;
}
