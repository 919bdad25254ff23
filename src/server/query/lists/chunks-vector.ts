import { sql } from "drizzle-orm";
import { listStatement, type RetrievalList } from "./candidate";
import { chunkCandidate, chunkColumns, chunkRow, chunkText, chunkValidity } from "./chunks";
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
      table: sql`gb_chunks`,
      text: chunkText,
      where: sql`c.dataset_id = ${q.datasetId} AND ${chunkValidity(q.asOf)}`,
      readsText: q.asOf !== null,
      limit: LIMIT,
    });
    return listStatement({ sql: statement, decode: chunkRow }, (rows) => rows.map(chunkCandidate));
  },
};
