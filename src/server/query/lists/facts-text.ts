import { sql } from "drizzle-orm";
import { bm25, matches } from "../bm25";
import { listStatement, type RetrievalList } from "./candidate";
import { factCandidate, factColumns, factRow, factTables, factValidity } from "./facts";
import { matchOrder, maxScored, sampled } from "./shared";

const LIMIT = 30;

/** facts_text: full text over fact sentences (tsvector, GIN), BM25-weighted (bm25.ts), newest first on a tie. */
export const factsText: RetrievalList = {
  statement(q) {
    const w = q.weights;
    if (!w.terms.length) return null;
    const statement = sql`SELECT * FROM (
          SELECT ${factColumns}, f.created_at AS created, f.sentence_tsv AS tsv FROM ${factTables}
          WHERE f.dataset_id = ${q.datasetId} AND ${factValidity(q.asOf)} AND ${sampled(w, sql`f`)} AND ${matches(sql`f.sentence_tsv`, w)}
          ${matchOrder(w, sql`f`)} LIMIT ${maxScored(w)}
        ) m ORDER BY ${bm25(sql`m.tsv`, w, false)} DESC, m.created DESC LIMIT ${LIMIT}`;
    return listStatement({ sql: statement, decode: factRow }, (rows) => rows.map(factCandidate));
  },
};
