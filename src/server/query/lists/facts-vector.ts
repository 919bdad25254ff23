import { sql } from "drizzle-orm";
import { cosineDistance, vectorRows } from "../../db/vector";
import { listStatement, type RetrievalList } from "./candidate";
import { factCandidate, factColumns, factRow, factTables, factValidity } from "./facts";
import { MAX_DISTANCE, questionVector } from "./shared";

const LIMIT = 30;

/** facts_vector: the facts whose embedding is nearest the question's (pgvector HNSW, or the scan fallback). */
export const factsVector: RetrievalList = {
  statement(q) {
    const v = questionVector(q);
    if (!v) return null;
    const distance = cosineDistance(sql`f.embedding`, v, { pgvector: q.pgvector, dimensions: q.dimensions });
    const statement = sql`SELECT * FROM (
          SELECT ${factColumns}, ${distance} AS d FROM ${factTables} WHERE f.dataset_id = ${q.datasetId} AND ${factValidity(q.asOf)} AND ${vectorRows(sql`f.embedding`, q.dimensions)}
          ORDER BY ${distance} LIMIT ${LIMIT}
        ) n WHERE d <= ${MAX_DISTANCE}`;
    return listStatement({ sql: statement, decode: factRow }, (rows) => rows.map(factCandidate));
  },
};
