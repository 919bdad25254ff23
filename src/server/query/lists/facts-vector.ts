import { sql } from "drizzle-orm";
import { listStatement, type RetrievalList } from "./candidate";
import { factCandidate, factColumns, factRow, factText, factValidity } from "./facts";
import { nearestSql, questionVector } from "./shared";

const LIMIT = 30;

/** facts_vector: the facts whose embedding is nearest the question's (pgvector HNSW, or the scan fallback). */
export const factsVector: RetrievalList = {
  statement(q) {
    const v = questionVector(q);
    if (!v) return null;
    const statement = nearestSql(q, v, {
      kind: "fact",
      alias: sql`f`,
      columns: factColumns,
      table: sql`gb_facts`,
      text: factText,
      where: sql`f.dataset_id = ${q.datasetId} AND ${factValidity(q.asOf)}`,
      readsText: q.asOf !== null,
      limit: LIMIT,
    });
    return listStatement({ sql: statement, decode: factRow }, (rows) => rows.map(factCandidate));
  },
};
