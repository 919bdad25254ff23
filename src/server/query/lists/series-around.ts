import { type SQL, sql } from "drizzle-orm";
import { listStatement, type RetrievalList } from "./candidate";
import { chunkCandidate, chunkColumns, chunkRow, chunkValidity } from "./chunks";

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
 * its first place. The seeds are the texts of chunks_text's rows, then of facts_text's, each
 * once, read in the same statement as those lists (their rows by name: retrieve.ts).
 */
export const seriesAround: RetrievalList = {
  reads: ["chunks_text", "facts_text"],
  statement(q, ref) {
    const [chunks, facts] = [ref("chunks_text"), ref("facts_text")];
    if (!chunks && !facts) return null;
    /** a list's texts in its order (each row's place in it: the order it was stored in) */
    const texts = (list: SQL | null, from: number) =>
      list ? sql`SELECT text_id, ${from}::int8 + row_number() OVER () AS o FROM ${list}` : sql`SELECT NULL::uuid, 0::int8 WHERE false`;
    const statement = sql`WITH seeds AS (
          SELECT text_id, min(o) AS o FROM (${texts(chunks, 0)} UNION ALL ${texts(facts, 1_000_000)}) x
          GROUP BY text_id ORDER BY min(o) LIMIT ${SEEDS}
        ), s AS (
          SELECT text_id, row_number() OVER (ORDER BY o) AS ord FROM seeds
        )
        SELECT ${chunkColumns}
        FROM s
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
          SELECT c.id, c.dataset_id, c.text_id, c.summary, c.content, c.idx, c.retired FROM gb_chunks c WHERE c.dataset_id = ${q.datasetId} AND c.text_id = t.id OFFSET 0
        ) c
        WHERE ${chunkValidity(q.asOf)}
        ORDER BY s.ord, d.k, c.idx LIMIT ${2 * LIMIT}`;
    return listStatement({ sql: statement, decode: chunkRow }, (rows) => {
      const seen = new Set<string>();
      const unique = rows.filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)));
      return unique.slice(0, LIMIT).map(chunkCandidate);
    });
  },
};
