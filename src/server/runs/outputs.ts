import { and, eq, sql } from "drizzle-orm";
import { type RunKind, StageTables } from "../../lib/stages";
import type { Db } from "../db/client";
import { queryStageOutputs, rememberStageOutputs } from "../db/schema";
import type { Scope } from "../auth/caller";
import { runDataset } from "./find";

export const outputTables = { remember: rememberStageOutputs, query: queryStageOutputs } as const;

/** What a stage produced for one item (0 for a stage that runs once), and when it ran on it. */
export interface KeptOutput {
  stage: string;
  itemIndex: number;
  output: unknown;
  startedAt: Date;
  finishedAt: Date;
}

/*
 * The run-log observer writes the stages' outputs (run-log.ts): a stage returns its Output and
 * never writes it. The one exception is chunk_text's, the chunk plan a resumed attempt follows:
 * durable queue state, which the remember job writes itself, fenced, before any chunk is stored.
 */

/** Keeps what a stage produced for one item (0 for a stage that runs once); times default to now. */
export async function keepOutput(
  db: Db,
  kind: RunKind,
  at: { datasetId: string; runId: string },
  stage: string,
  itemIndex: number,
  output: unknown,
  times?: { startedAt: Date; finishedAt: Date },
): Promise<void> {
  const now = new Date();
  await keepOutputs(db, kind, at, [{ stage, itemIndex, output, startedAt: times?.startedAt ?? now, finishedAt: times?.finishedAt ?? now }]);
}

/** Keeps several outputs in one statement; of two for the same stage and item, the later. */
/** A stage output's row in its run kind's output table. */
export function outputRow(at: { datasetId: string; runId: string }, k: KeptOutput, now: Date) {
  return {
    datasetId: at.datasetId,
    runId: at.runId,
    stage: k.stage,
    itemIndex: k.itemIndex,
    output: k.output ?? null,
    startedAt: k.startedAt,
    finishedAt: k.finishedAt,
    createdAt: now,
  };
}

export async function keepOutputs(db: Db, kind: RunKind, at: { datasetId: string; runId: string }, kept: readonly KeptOutput[]): Promise<void> {
  if (kept.length === 0) return;
  const t = outputTables[kind];
  const now = new Date();
  const last = new Map(kept.map((k) => [`${k.stage}\u0000${k.itemIndex}`, k]));
  await db
    .insert(t)
    .values(
      [...last.values()].map((k) => outputRow(at, k, now)),
    )
    .onConflictDoUpdate({
      target: [t.datasetId, t.runId, t.stage, t.itemIndex],
      set: { output: sql`excluded.output`, startedAt: sql`excluded.started_at`, finishedAt: sql`excluded.finished_at`, createdAt: sql`excluded.created_at` },
    });
}

/** What a stage kept for one item, or undefined when it kept nothing. */
export async function readOutput(db: Db, kind: RunKind, at: { datasetId: string; runId: string }, stage: string, itemIndex: number): Promise<unknown> {
  const t = outputTables[kind];
  const [row] = await db
    .select({ output: t.output })
    .from(t)
    .where(and(eq(t.datasetId, at.datasetId), eq(t.runId, at.runId), eq(t.stage, stage), eq(t.itemIndex, itemIndex)))
    .limit(1);
  return row?.output;
}

export interface StageOutput {
  stage: string;
  itemIndex: number;
  output: unknown;
  /** when the stage began and ended on the item */
  startedAt: Date;
  finishedAt: Date;
  createdAt: Date;
}

/** runs.*.outputs: what each stage of a run kept, in pipeline order, item by item. */
export async function listOutputs({ db, scope, kind, id, stage }: { db: Db; scope: Scope; kind: RunKind; id: string; stage?: string }): Promise<StageOutput[]> {
  const dataset = await runDataset({ db, scope, kind, id });
  const t = outputTables[kind];
  const rows = await db
    .select({ stage: t.stage, itemIndex: t.itemIndex, output: t.output, startedAt: t.startedAt, finishedAt: t.finishedAt, createdAt: t.createdAt })
    .from(t)
    .where(and(eq(t.datasetId, dataset.id), eq(t.runId, id), stage ? eq(t.stage, stage) : undefined));
  const order = new Map<string, number>(StageTables[kind].map((s, i) => [s.name, i]));
  return rows.sort((a, b) => (order.get(a.stage) ?? 99) - (order.get(b.stage) ?? 99) || a.itemIndex - b.itemIndex);
}
