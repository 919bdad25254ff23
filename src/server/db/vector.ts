import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

/*
 * Embeddings are stored as real[] so that every server can read them. Where pgvector exists, the
 * distance is written as a cast to vector(N), the same expression an HNSW expression index is
 * built on, so the index serves it; elsewhere gb_cosine_distance (migration 0000) computes the
 * same value by a scan. Both are cosine distance: 0 = same direction, 2 = opposite.
 */

function assertVector(v: readonly number[]): void {
  if (v.length === 0 || !v.every(Number.isFinite)) throw new Error("a query vector must be non-empty and finite");
}

export function cosineDistance(
  column: SQLWrapper,
  query: readonly number[],
  opts: { pgvector: boolean; dimensions: number },
): SQL {
  assertVector(query);
  if (query.length !== opts.dimensions) {
    throw new Error(`query vector has ${query.length} dimensions, expected ${opts.dimensions}`);
  }
  if (opts.pgvector) {
    const n = sql.raw(String(Math.trunc(opts.dimensions)));
    return sql`((${column})::vector(${n}) <=> ${`[${query.join(",")}]`}::vector(${n}))`;
  }
  return sql`gb_cosine_distance(${column}, ${`{${query.join(",")}}`}::real[])`;
}

/**
 * The condition an embedding search adds so that pgvector's partial HNSW indexes (migration 0003:
 * vectors of 256 dimensions) can serve it, and rows of another size never reach the cast.
 */
export function vectorRows(column: SQLWrapper, dimensions: number): SQL {
  return sql`array_length(${column}, 1) = ${sql.raw(String(Math.trunc(dimensions)))}`;
}
