import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { entities } from "../db/schema";
import { type FactRow, type FactView, factSelect, toFactView } from "../graph/shape";
import type { Scope } from "../auth/caller";
import { getRun } from "../runs/get";

export interface MemoryChanges {
  runId: string;
  entitiesCreated: { id: string; name: string; type: string }[];
  factsCreated: FactView[];
  factsInvalidated: FactView[];
}

/** runs.remember.changes: the memory diff of one run. */
export async function rememberChanges({ db, scope, id }: { db: Db; scope: Scope; id: string }): Promise<MemoryChanges> {
  const run = await getRun({ db, scope, kind: "remember", id });
  const [ds] = await queryRows<{ dataset_id: string }>(db, sql`SELECT dataset_id FROM gb_remember_runs WHERE id = ${id} LIMIT 1`);
  const datasetId = ds!.dataset_id;
  const [created, made, retired] = [
    await db
      .select({ id: entities.id, name: entities.name, type: entities.type })
      .from(entities)
      .where(and(eq(entities.datasetId, datasetId), eq(entities.createdRunId, run.id)))
      .orderBy(asc(entities.name)),
    await queryRows<FactRow>(db, sql`${factSelect} WHERE f.dataset_id = ${datasetId} AND f.created_run_id = ${run.id} ORDER BY f.created_at, f.id`),
    await queryRows<FactRow>(db, sql`${factSelect} WHERE f.dataset_id = ${datasetId} AND f.invalidated_run_id = ${run.id} ORDER BY f.created_at, f.id`),
  ];
  return { runId: run.id, entitiesCreated: created, factsCreated: made.map(toFactView), factsInvalidated: retired.map(toFactView) };
}
