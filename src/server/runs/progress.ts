import { and, count, eq, lt, sql } from "drizzle-orm";
import { RememberStages } from "../../lib/stages";
import type { Db } from "../db/client";
import { chunks, rememberRuns, rememberStageOutputs } from "../db/schema";
import type { RememberRunRow } from "../db/schema/run-logs";
import { readGroup } from "../db/schema/stage-group";

/** How far a remember run has come, for its page's progress bar. */
export interface RunProgress {
  /** stages that have ended (succeeded, failed or skipped) */
  stagesDone: number;
  stagesTotal: number;
  /** chunks stored so far */
  chunksDone: number;
  /** the chunks of the text; null until chunk_text has run */
  chunksTotal: number | null;
  /** for a queued run: queued runs of its dataset ahead of it (0 = next); else null */
  queuePosition: number | null;
}

const ENDED = new Set(["succeeded", "failed", "skipped"]);

/**
 * The chunks of a run's text, once its plan is known: the plan is kept whole (a megabyte's plan
 * is a megabyte of JSON), and a page polling a long run read it a second at a time. A run's plan
 * never changes (a later attempt follows it), so its count is kept here, for the runs seen last.
 */
const planned = new Map<string, number>();
const PLANNED_KEPT = 1000;

async function chunksTotal(db: Db, row: RememberRunRow): Promise<number | null> {
  const known = planned.get(row.id);
  if (known !== undefined) return known;
  const t = rememberStageOutputs;
  const [outputs] = await db
    .select({
      // chunk_text keeps the list of chunks; extract_graph's outputs count them when it is gone (purge)
      listed: sql<number | null>`max(CASE WHEN ${t.stage} = 'chunk_text' AND jsonb_typeof(${t.output} -> 'chunks') = 'array'
        THEN jsonb_array_length(${t.output} -> 'chunks') END)`,
      extracted: sql<number>`count(*) FILTER (WHERE ${t.stage} = 'extract_graph')`,
    })
    .from(t)
    .where(and(eq(t.datasetId, row.datasetId), eq(t.runId, row.id)));
  const listed = outputs?.listed ?? null;
  const extracted = Number(outputs?.extracted ?? 0);
  if (listed === null) return extracted > 0 ? extracted : null;
  if (planned.size >= PLANNED_KEPT) planned.delete(planned.keys().next().value!);
  planned.set(row.id, Number(listed));
  return Number(listed);
}

export async function rememberProgress(db: Db, row: RememberRunRow): Promise<RunProgress> {
  const stagesDone = RememberStages.filter((s) => ENDED.has(readGroup(row, s).status)).length;
  const total = await chunksTotal(db, row);
  // chunks stored: counted in gb_chunks itself (the text's id is the run's: gb_chunks_text_idx), not
  // by store's outputs, which are written after the chunk's transaction and may be missing (a crash
  // between the two, a failed write) while the chunk is stored
  const [stored] = await db
    .select({ n: count() })
    .from(chunks)
    .where(and(eq(chunks.datasetId, row.datasetId), eq(chunks.textId, row.id)));
  let queuePosition: number | null = null;
  if (row.status === "queued") {
    // the queue's order is seq (submission), served by gb_remember_runs_queued_idx
    const [ahead] = await db
      .select({ n: count() })
      .from(rememberRuns)
      .where(and(eq(rememberRuns.datasetId, row.datasetId), eq(rememberRuns.status, "queued"), lt(rememberRuns.seq, row.seq)));
    queuePosition = Number(ahead?.n ?? 0);
  }
  return {
    stagesDone,
    stagesTotal: RememberStages.length,
    chunksDone: Number(stored?.n ?? 0),
    chunksTotal: total,
    queuePosition,
  };
}
