import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { queryRows } from "../db/rows";
import { entities } from "../db/schema";
import { factRow, type FactView, factSelect, toFactView } from "../graph/shape";
import type { Scope } from "../auth/caller";
import { runDataset } from "../runs/find";

export interface MemoryChanges {
  runId: string;
  entitiesCreated: { id: string; name: string; type: string }[];
  factsCreated: FactView[];
  factsInvalidated: FactView[];
}

/** runs.remember.changes: the memory diff of one run. */
export async function rememberChanges({ db, scope, id }: { db: Db; scope: Scope; id: string }): Promise<MemoryChanges> {
  // the run's dataset, when the caller may see it (else NOT_FOUND); nothing else of the run is needed
  const datasetId = (await runDataset({ db, scope, kind: "remember", id })).id;
  const [created, made, retired] = [
    await db
      .select({ id: entities.id, name: entities.name, type: entities.type })
      .from(entities)
      .where(and(eq(entities.datasetId, datasetId), eq(entities.createdRunId, id)))
      .orderBy(asc(entities.name)),
    await queryRows(db, sql`${factSelect} WHERE f.dataset_id = ${datasetId} AND f.created_run_id = ${id} ORDER BY f.created_at, f.id`, factRow),
    await queryRows(db, sql`${factSelect} WHERE f.dataset_id = ${datasetId} AND f.invalidated_run_id = ${id} ORDER BY f.created_at, f.id`, factRow),
  ];
  return { runId: id, entitiesCreated: created, factsCreated: made.map(toFactView), factsInvalidated: retired.map(toFactView) };
}
