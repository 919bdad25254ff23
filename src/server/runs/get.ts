import { eq } from "drizzle-orm";
import type { RunKind } from "../../lib/stages";
import type { Db } from "../db/client";
import { inferences } from "../db/schema";
import { findDatasetById } from "../datasets/datasets";
import { NotFoundError } from "../errors";
import { type RunDetail, stageViews, summarize } from "./shape";
import { runLogs } from "./tables";

export async function getRun({ db, kind, id }: { db: Db; kind: RunKind; id: string }): Promise<RunDetail> {
  const { table, stages } = runLogs[kind];
  const [row] = await db.select().from(table).where(eq(table.id, id)).limit(1);
  if (!row) throw new NotFoundError(`${kind} run`, id);
  const dataset = await findDatasetById(db, row.datasetId);
  return {
    ...summarize(kind, dataset?.name ?? row.datasetId, row, stages),
    params: row.params,
    stages: stageViews(row, stages),
  };
}

export type InferenceDetail = typeof inferences.$inferSelect & { dataset: string };

export async function getInference({ db, id }: { db: Db; id: string }): Promise<InferenceDetail> {
  const [row] = await db.select().from(inferences).where(eq(inferences.id, id)).limit(1);
  if (!row) throw new NotFoundError("inference", id);
  const dataset = await findDatasetById(db, row.datasetId);
  return { ...row, dataset: dataset?.name ?? row.datasetId };
}
