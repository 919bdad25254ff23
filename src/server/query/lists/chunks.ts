import { type SQL, sql } from "drizzle-orm";
import { column, rowDecoder } from "../../db/rows";
import type { TextSource } from "../../db/schema/graph";
import type { Candidate } from "./candidate";

/*
 * The lists that find chunks select these columns from these tables (a chunk `c` with its text
 * `t`) and make candidates of the rows with chunkCandidate: a chunk is given by its summary.
 */

export const chunkColumns = sql`c.id, c.text_id, c.summary, c.content, t.source, coalesce(t.occurred_at, t.created_at) AS at`;
export const chunkText = sql`JOIN gb_texts t ON t.dataset_id = c.dataset_id AND t.id = c.text_id`;
export const chunkTables = sql`gb_chunks c ${chunkText}`;

/**
 * `c` and `t` as chunkTables has them, for the chunk each row before it names (`id`): looked up
 * by key whatever the planner's statistics say (a LATERAL subquery it cannot flatten, OFFSET 0).
 * With statistics that had never seen the dataset, the planner joined the chosen chunks to
 * gb_chunks and gb_texts by scanning the whole dataset in each (chunks_text: 34 s a question on
 * a LoCoMo conversation, 9 ms this way; see db/maintenance.ts). The columns are those that
 * chunkColumns, chunkValidity and an ORDER BY on c.created_at read.
 */
export function chunkTablesById(datasetId: string, id: SQL): SQL {
  return sql`CROSS JOIN LATERAL (
      SELECT c.id, c.dataset_id, c.text_id, c.summary, c.content, c.created_at, c.idx, c.retired FROM gb_chunks c WHERE c.dataset_id = ${datasetId} AND c.id = ${id} OFFSET 0
    ) c
    CROSS JOIN LATERAL (
      SELECT t.id, t.source, t.occurred_at, t.created_at FROM gb_texts t WHERE t.dataset_id = c.dataset_id AND t.id = c.text_id OFFSET 0
    ) t`;
}

export const chunkRow = rowDecoder({
  id: column.text,
  text_id: column.text,
  summary: column.text,
  content: column.text,
  source: column.json<TextSource>(),
  at: column.timestamp,
});

export type ChunkRow = ReturnType<typeof chunkRow>;

export function chunkCandidate(r: ChunkRow): Candidate {
  return {
    key: `summary:${r.id}`,
    kind: "summary",
    id: r.id,
    text: r.summary || r.content,
    validAt: null,
    invalidAt: null,
    entityIds: [],
    source: { textId: r.text_id, chunkId: r.id, ...r.source },
    at: r.at,
  };
}

/** Chunks that are current context, or whose text was known at `asOf`. */
export function chunkValidity(asOf: Date | null): SQL {
  // A chunk all of whose facts were retired tells of a past that is no longer so ("Alice lives
  // in Paris" after she moved): its summary is not current context. gb_chunks.retired is kept so
  // by triggers (migration 0023); before, two subqueries per chunk row cost each question about
  // 0.3 ms of planning and 0.3-1.3 ms of execution at 10k facts.
  if (!asOf) return sql`NOT c.retired`;
  return sql`coalesce(t.occurred_at, t.created_at) <= ${asOf.toISOString()}::timestamptz`;
}
