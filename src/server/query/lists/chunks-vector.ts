import { sql } from "drizzle-orm";
import { listStatement, type RetrievalList } from "./candidate";
import { chunkCandidate, chunkColumns, chunkRow, chunkTables, chunkValidity } from "./chunks";
import { nearestSql, questionVector } from "./shared";

const LIMIT = 30;

/** chunks_vector: the chunks whose embedding is nearest the question's. */
export const chunksVector: RetrievalList = {
  statement(q) {
    const v = questionVector(q);
    if (!v) return null;
    const statement = nearestSql(q, v, {
      kind: "chunk",
      alias: sql`c`,
      columns: chunkColumns,
      from: chunkTables,
      where: sql`c.dataset_id = ${q.datasetId} AND ${chunkValidity(q.asOf)}`,
      limit: LIMIT,
    });
    return listStatement({ sql: statement, decode: chunkRow }, (rows) => rows.map(chunkCandidate));
  },
};
