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
 * series_next: the text after each of the best full-text chunks and facts in its series (an
 * answer follows its question in a conversation), in the order of the texts it follows.
 */
export const seriesNext: RetrievalList = async (q) => {
  const [chunks, facts] = await Promise.all([q.run(chunksText), q.run(factsText)]);
  const seeds = [...new Set([...chunks, ...facts].map((c) => c.source.textId))].slice(0, SEEDS);
  if (!seeds.length) return [];
  const rows = await queryRows(
    q.db,
    sql`SELECT ${chunkColumns}
        FROM unnest(${uuidArray(seeds)}) WITH ORDINALITY AS s(text_id, ord)
        JOIN gb_texts t0 ON t0.dataset_id = ${q.datasetId} AND t0.id = s.text_id
        JOIN gb_texts t ON t.dataset_id = t0.dataset_id AND t.series_key = t0.series_key AND t.series_position = t0.series_position + 1
        JOIN gb_chunks c ON c.dataset_id = t.dataset_id AND c.text_id = t.id
        WHERE ${chunkValidity(q.asOf)}
        ORDER BY s.ord, c.idx LIMIT ${LIMIT}`,
    chunkRow,
  );
  return rows.map(chunkCandidate);
};
