import { sql } from "drizzle-orm";
import { seedGraph } from "../../scripts/bench/seed";
import type { Db } from "../server/db/client";
import { column, queryRows, rowDecoder } from "../server/db/rows";

/** The vector tests' rows: an id and its embedding. */
export type VectorRow = { id: string; embedding: number[] };
export const vectorRow = rowDecoder({ id: column.text, embedding: column.json<number[]>() });

/**
 * The exact answer, worked out here rather than by the database (24 scans of 4,000 cosines in SQL
 * took 15 s of PGlite): the `n` rows nearest `v` by the cosine, nearest first, within `maxDistance`.
 */
export function nearestByCosine(rows: VectorRow[], v: number[], n: number, maxDistance: number): { id: string; d: number }[] {
  const norm = (a: number[]) => Math.sqrt(a.reduce((s, x) => s + x * x, 0));
  const nv = norm(v);
  return rows
    .map((r) => ({ id: r.id, d: 1 - r.embedding.reduce((s, x, k) => s + x * v[k]!, 0) / (norm(r.embedding) * nv) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, n)
    .filter((r) => r.d <= maxDistance);
}

/**
 * A graph of `facts` facts with embeddings of `dims` (the bench's: each near its subject's
 * direction, so that neighbours cluster as real ones do); `questions` embeddings of facts, a little
 * moved; and every current fact's embedding, for the exact answer.
 */
export async function vectorGraph(db: Db, facts: number, dims: number, questions: number): Promise<{ datasetId: string; questions: number[][]; all: VectorRow[] }> {
  const { datasetId } = await seedGraph(db, facts, { embeddings: dims });
  const picked = await queryRows(db, sql`SELECT id, to_json(embedding) AS embedding FROM gb_facts WHERE dataset_id = ${datasetId} ORDER BY id LIMIT ${questions}`, vectorRow);
  const all = await queryRows(
    db,
    sql`SELECT id, to_json(embedding) AS embedding FROM gb_facts WHERE dataset_id = ${datasetId} AND expired_at IS NULL AND embedding IS NOT NULL`,
    vectorRow,
  );
  return { datasetId, questions: picked.map((r, i) => r.embedding.map((x, k) => x + 0.3 * Math.sin(i * 31 + k * 7))), all };
}
