import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

/*
 * Embeddings are stored as real[] so that every server can read them. Where pgvector exists, the
 * distance is written as a cast to vector(N), the same expression an HNSW expression index is
 * built on, so the index serves it; elsewhere the same value as gb_cosine_distance (migration
 * 0000) is computed over the arrays, row by row. Both are cosine distance: 0 = same direction, 2 = opposite.
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
  // gb_cosine_distance's formula, written out: a SQL function whose body has a FROM is not inlined,
  // and each call of it started an executor of its own, about a third of its 50 µs a row (256
  // dimensions; 120 rows: 5.9 -> 3.9 ms). The question's norm is the same for every row. The two
  // arrays are unnested in the select list (side by side, the shorter padded with nulls, as
  // unnest(a, b) in FROM does) rather than by a function scan, which stored each row's 256 pairs
  // before the sums read them: 34 -> 23 µs a row, the same value.
  const norm = Math.sqrt(query.reduce((a, x) => a + Math.fround(x) * Math.fround(x), 0));
  return sql`(SELECT 1 - sum(gb_v.x::float8 * gb_v.y) / nullif(sqrt(sum(gb_v.x::float8 * gb_v.x)) * ${norm}::float8, 0)
    FROM (SELECT unnest(${column}) AS x, unnest(${`{${query.join(",")}}`}::real[]) AS y) gb_v)`;
}

/**
 * The condition an embedding search adds so that pgvector's partial HNSW indexes (migration 0003:
 * vectors of 256 dimensions) can serve it, and rows of another size never reach the cast.
 */
export function vectorRows(column: SQLWrapper, dimensions: number): SQL {
  return sql`array_length(${column}, 1) = ${sql.raw(String(Math.trunc(dimensions)))}`;
}
