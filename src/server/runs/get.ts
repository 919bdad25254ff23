import { eq } from "drizzle-orm";
import type { RunKind } from "../../lib/stages";
import type { Db } from "../db/client";
import { inferences } from "../db/schema";
import type { Scope } from "../auth/caller";
import { datasetInScope } from "../datasets/datasets";
import { NotFoundError } from "../errors";
import type { RememberRunRow } from "../db/schema/run-logs";
import { rememberProgress } from "./progress";
import { type RunDetail, stageViews, summarize } from "./shape";
import { runLogs } from "./tables";

export async function getRun({ db, scope, kind, id }: { db: Db; scope: Scope; kind: RunKind; id: string }): Promise<RunDetail> {
  const { table, stages } = runLogs[kind];
  const [row] = await db.select().from(table).where(eq(table.id, id)).limit(1);
  const dataset = row && (await datasetInScope(db, row.datasetId, scope));
  if (!row || !dataset) throw new NotFoundError(`${kind} run`, id);
  return {
    ...summarize(kind, dataset.name, row, stages),
    params: row.params,
    stages: stageViews(row, stages),
    // the remember log is also its queue: how far a run has come, or how long it has to wait
    progress: kind === "remember" ? await rememberProgress(db, row as RememberRunRow) : null,
    ...(kind === "remember" ? queueState(row as RememberRunRow) : { attempt: 1, attempts: [], retryAt: null, idempotencyKey: null }),
  };
}

function queueState(row: RememberRunRow) {
  return { attempt: row.attempts, attempts: row.attemptErrors, retryAt: row.retryAt, idempotencyKey: row.idempotencyKey };
}

export type InferenceDetail = typeof inferences.$inferSelect & { dataset: string };

export async function getInference({ db, scope, id }: { db: Db; scope: Scope; id: string }): Promise<InferenceDetail> {
  const [row] = await db.select().from(inferences).where(eq(inferences.id, id)).limit(1);
  const dataset = row && (await datasetInScope(db, row.datasetId, scope));
  if (!row || !dataset) throw new NotFoundError("inference", id);
  return { ...row, dataset: dataset.name };
}
