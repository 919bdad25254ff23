import { sql } from "drizzle-orm";
import { queryRows } from "../../db/rows";
import { bm25, matches } from "../bm25";
import type { RetrievalList } from "./candidate";
import { chunkCandidate, chunkColumns, chunkRow, chunkTables, chunkValidity } from "./chunks";
import { MAX_SCORED } from "./shared";

const LIMIT = 30;

/** chunks_text: full text over chunk summaries and content, BM25-weighted, newest first on a tie. */
export const chunksText: RetrievalList = async (q) => {
  const w = q.weights;
  if (!w.terms.length) return [];
  const rows = await queryRows(
    q.db,
    sql`SELECT * FROM (
          SELECT ${chunkColumns}, c.created_at AS created, c.search_tsv AS tsv FROM ${chunkTables}
          WHERE c.dataset_id = ${q.datasetId} AND ${chunkValidity(q.asOf)} AND ${matches(sql`c.search_tsv`, w)}
          LIMIT ${MAX_SCORED}
        ) m ORDER BY ${bm25(sql`m.tsv`, w, true)} DESC, m.created DESC LIMIT ${LIMIT}`,
    chunkRow,
  );
  return rows.map(chunkCandidate);
};
