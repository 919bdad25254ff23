import { sql } from "drizzle-orm";
import { queryRows } from "../../db/rows";
import { bm25, matches } from "../bm25";
import type { RetrievalList } from "./candidate";
import { chunkCandidate, chunkColumns, chunkRow, chunkTables, chunkValidity } from "./chunks";
import { MAX_SCORED } from "./shared";

const LIMIT = 30;
/**
 * The best texts whose neighbours get a share of their score. A neighbour gets at most 0.35 of a
 * text's score: below the best hundred, that share puts no neighbour in the first thirty.
 */
const SPREAD_FROM = 100;

/**
 * How much of a text's BM25 score its neighbours in the series get, by distance: a turn of a chat
 * means what it means with the turns just before and after it ("Which one?" — "The red one").
 */
export const NEIGHBOUR_WEIGHTS = [0.35, 0.175] as const;

/**
 * chunks_text: full text over chunk summaries and content in their series, BM25-weighted. A chunk scores its own BM25 plus a share
 * of the best score of the texts one and two places before and after its text in the series
 * (NEIGHBOUR_WEIGHTS); a text in no series scores alone. So the turn that answers a question is
 * found though the question's words are in the turn that asked it, and a turn whose neighbours
 * are about the same thing ranks above a stray mention.
 */
export const chunksText: RetrievalList = async (q) => {
  const w = q.weights;
  if (!w.terms.length) return [];
  const offsets = NEIGHBOUR_WEIGHTS.flatMap((weight, i) => [sql`(${i + 1}::int, ${weight}::float8)`, sql`(${-(i + 1)}::int, ${weight}::float8)`]);
  const rows = await queryRows(
    q.db,
    sql`WITH m AS (
          SELECT c.id, c.text_id, t.series_key, t.series_position, c.search_tsv AS tsv FROM ${chunkTables}
          WHERE c.dataset_id = ${q.datasetId} AND ${chunkValidity(q.asOf)} AND ${matches(sql`c.search_tsv`, w)}
          LIMIT ${MAX_SCORED}
        ), own AS (
          SELECT m.id, m.text_id, m.series_key, m.series_position, ${bm25(sql`m.tsv`, w, true)} AS s FROM m
        ), texts AS (
          SELECT series_key, series_position, max(s) AS s
          FROM (SELECT * FROM own WHERE series_key IS NOT NULL ORDER BY s DESC LIMIT ${SPREAD_FROM}) best GROUP BY 1, 2
        ), spread AS (
          SELECT c.id, x.s * d.w AS s
          FROM texts x CROSS JOIN (VALUES ${sql.join(offsets, sql`, `)}) AS d(off, w)
          JOIN gb_texts t ON t.dataset_id = ${q.datasetId} AND t.series_key = x.series_key AND t.series_position = x.series_position + d.off
          JOIN gb_chunks c ON c.dataset_id = t.dataset_id AND c.text_id = t.id
        ), scored AS (
          SELECT id, sum(s) AS s FROM (SELECT id, s FROM own UNION ALL SELECT id, s FROM spread) a
          GROUP BY id ORDER BY sum(s) DESC, id LIMIT ${2 * LIMIT}
        )
        SELECT ${chunkColumns} FROM scored
        JOIN gb_chunks c ON c.dataset_id = ${q.datasetId} AND c.id = scored.id
        JOIN gb_texts t ON t.dataset_id = c.dataset_id AND t.id = c.text_id
        -- a neighbour that is not current context (its facts all retired) is checked only here
        WHERE ${chunkValidity(q.asOf)}
        ORDER BY scored.s DESC, c.created_at DESC LIMIT ${LIMIT}`,
    chunkRow,
  );
  return rows.map(chunkCandidate);
};
