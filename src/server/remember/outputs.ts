import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { rememberStageOutputs } from "../db/schema";

/** Keeps what a stage produced for one item (0 for a stage that runs once), for debugging. */
export async function keepOutput(
  db: Db,
  at: { datasetId: string; runId: string },
  stage: string,
  itemIndex: number,
  output: unknown,
): Promise<void> {
  await db
    .insert(rememberStageOutputs)
    .values({ datasetId: at.datasetId, runId: at.runId, stage, itemIndex, output: output ?? null, createdAt: new Date() })
    .onConflictDoUpdate({
      target: [rememberStageOutputs.datasetId, rememberStageOutputs.runId, rememberStageOutputs.stage, rememberStageOutputs.itemIndex],
      set: { output: sql`excluded.output`, createdAt: sql`excluded.created_at` },
    });
}

export interface StageOutput {
  stage: string;
  itemIndex: number;
  output: unknown;
  createdAt: Date;
}

export async function listOutputs(db: Db, at: { datasetId: string; runId: string }, stage?: string): Promise<StageOutput[]> {
  const t = rememberStageOutputs;
  const rows = await db
    .select({ stage: t.stage, itemIndex: t.itemIndex, output: t.output, createdAt: t.createdAt })
    .from(t)
    .where(and(eq(t.datasetId, at.datasetId), eq(t.runId, at.runId), stage ? eq(t.stage, stage) : undefined))
    .orderBy(asc(t.createdAt), asc(t.itemIndex));
  return rows;
}
