import { sql } from "drizzle-orm";
import { queryRows } from "../../db/rows";
import type { RetrievalList } from "./candidate";
import { chunkCandidate, chunkColumns, chunkRow, chunkValidity } from "./chunks";
import { chunksText } from "./chunks-text";
import { factsText } from "./facts-text";
import { uuidArray } from "./shared";

const LIMIT = 30;
/** the best full-text texts whose next text is looked for */
const SEEDS = 10;
/**
 * the best full-text texts whose previous text is looked for too: half the seeds. On the LoCoMo
 * dev set, 3, 5 and 10 all raised recall@10 (75.5, 75.9, 75.9 against 74.5 without); 5 raised it on
 * each of the five conversations (10 lowered conv-43's), see #13's note.
 */
const BEFORE_SEEDS = 5;

/**
 * series_around: the texts just around the best full-text chunks and facts in their series: the
 * one after each (an answer follows its question in a conversation), and for the best few the one
 * before (the question a matched answer answers, the turn that says what "it" is), in the order of
 * the texts they are next to, the one after first. A text next to two of them is listed once, at
 * its first place.
 */
export const seriesAround: RetrievalList = async (q) => {
  const [chunks, facts] = await Promise.all([q.run(chunksText), q.run(factsText)]);
  const seeds = [...new Set([...chunks, ...facts].map((c) => c.source.textId))].slice(0, SEEDS);
  if (!seeds.length) return [];
  const rows = await queryRows(
    q.db,
    sql`SELECT ${chunkColumns}
        FROM unnest(${uuidArray(seeds)}) WITH ORDINALITY AS s(text_id, ord)
        JOIN (VALUES (1, 0), (-1, 1)) AS d(off, k) ON d.off = 1 OR s.ord <= ${BEFORE_SEEDS}
        -- each step by key, whatever the planner's statistics say (as chunkTablesById)
        CROSS JOIN LATERAL (
          SELECT t0.series_key, t0.series_position FROM gb_texts t0 WHERE t0.dataset_id = ${q.datasetId} AND t0.id = s.text_id OFFSET 0
        ) t0
        CROSS JOIN LATERAL (
          SELECT t.id, t.source, t.occurred_at, t.created_at FROM gb_texts t
          WHERE t.dataset_id = ${q.datasetId} AND t.series_key = t0.series_key AND t.series_position = t0.series_position + d.off OFFSET 0
        ) t
        CROSS JOIN LATERAL (
          SELECT c.id, c.dataset_id, c.text_id, c.summary, c.content, c.idx FROM gb_chunks c WHERE c.dataset_id = ${q.datasetId} AND c.text_id = t.id OFFSET 0
        ) c
        WHERE ${chunkValidity(q.asOf)}
        ORDER BY s.ord, d.k, c.idx LIMIT ${2 * LIMIT}`,
    chunkRow,
  );
  const seen = new Set<string>();
  const unique = rows.filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)));
  return unique.slice(0, LIMIT).map(chunkCandidate);
};
