import { sql } from "drizzle-orm";
import { cosineDistance, vectorRows } from "../../db/vector";
import { listStatement, type RetrievalList } from "./candidate";
import { chunkCandidate, chunkColumns, chunkRow, chunkTables, chunkValidity } from "./chunks";
import { MAX_DISTANCE, questionVector } from "./shared";

const LIMIT = 30;

/** chunks_vector: the chunks whose embedding is nearest the question's. */
export const chunksVector: RetrievalList = {
  statement(q) {
    const v = questionVector(q);
    if (!v) return null;
    const distance = cosineDistance(sql`c.embedding`, v, { pgvector: q.pgvector, dimensions: q.dimensions });
    const statement = sql`SELECT * FROM (
          SELECT ${chunkColumns}, ${distance} AS d FROM ${chunkTables} WHERE c.dataset_id = ${q.datasetId} AND ${chunkValidity(q.asOf)} AND ${vectorRows(sql`c.embedding`, q.dimensions)}
          ORDER BY ${distance} LIMIT ${LIMIT}
        ) n WHERE d <= ${MAX_DISTANCE}`;
    return listStatement({ sql: statement, decode: chunkRow }, (rows) => rows.map(chunkCandidate));
  },
};
