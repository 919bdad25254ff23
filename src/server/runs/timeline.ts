import { and, asc, eq } from "drizzle-orm";
import type { RunKind } from "../../lib/stages";
import type { Db } from "../db/client";
import { inferences } from "../db/schema";
import type { WaterfallCall as TimelineInference, WaterfallItem as TimelineItem } from "../../lib/waterfall";
import type { Scope } from "../auth/caller";
import { runDataset } from "./find";
import { outputTables } from "./outputs";

// the waterfall's own input types (src/lib, which the pages share): a model call ran from
// createdAt − latencyMs to createdAt; an item (chunk) of a stage ran when its output says
export type { TimelineInference, TimelineItem };

export interface RunTimeline {
  runId: string;
  inferences: TimelineInference[];
  items: TimelineItem[];
}

/**
 * runs.*.timeline: the timings the waterfall draws inside the stage bars. Only timings, never
 * the outputs or requests themselves, so that a run of many chunks stays a small answer.
 */
export async function runTimeline({ db, scope, kind, id }: { db: Db; scope: Scope; kind: RunKind; id: string }): Promise<RunTimeline> {
  const dataset = await runDataset({ db, scope, kind, id });
  const t = outputTables[kind];
  const [calls, items] = await Promise.all([
    db
      .select({
        id: inferences.id,
        stage: inferences.stage,
        task: inferences.task,
        createdAt: inferences.createdAt,
        latencyMs: inferences.latencyMs,
        error: inferences.error,
      })
      .from(inferences)
      .where(and(eq(inferences.datasetId, dataset.id), eq(inferences.runId, id)))
      .orderBy(asc(inferences.createdAt), asc(inferences.id)),
    db
      .select({ stage: t.stage, itemIndex: t.itemIndex, startedAt: t.startedAt, finishedAt: t.finishedAt })
      .from(t)
      .where(and(eq(t.datasetId, dataset.id), eq(t.runId, id)))
      .orderBy(asc(t.startedAt), asc(t.stage), asc(t.itemIndex)),
  ]);
  return { runId: id, inferences: calls, items };
}
