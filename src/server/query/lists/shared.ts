import { type SQL, sql } from "drizzle-orm";
import { cellSearch, RESCORE, type VectorKind } from "../../db/vector-cells";
import { cosineDistance, vectorRows } from "../../db/vector";
import { onlyCommon, type TermWeights } from "../bm25";
import type { ListQuery } from "./candidate";

/** A uuid[] parameter (uuids need no quoting in an array literal). */
export const uuidArray = (ids: string[]) => sql`${`{${ids.join(",")}}`}::uuid[]`;

/**
 * The most full-text matches a text list scores. A question of only common words matches most of
 * a large dataset; scoring all of it would take seconds, and the best of a bounded sample is as
 * good an answer to such a question.
 */
export const MAX_SCORED = 3000;

/**
 * The most a text list scores when no question term is rare (each in more than a fifth of the
 * chunks: "Who likes it?"). Such terms rank a row by little more than its length, so a small
 * sample answers as well: a hundred, what chunks_text lends from (LEND_FROM), so that every row
 * scored lends its terms around it. At 500 such a question cost Postgres 7 ms more than one
 * naming a person at 100k facts (chunks_text 4.2 ms, facts_text 2.1 ms of EXPLAIN ANALYZE's 10.6).
 * A fifth of the chunks of most LoCoMo conversations is about a hundred: there the bound is
 * seldom reached (LoCoMo dev: recall@10 76.6 and MRR 57.5 both ways, recall@5 68.2 -> 68.4).
 */
export const MAX_SCORED_COMMON = 100;

/** The most full-text matches a text list scores for the question's terms. */
export const maxScored = (w: TermWeights) => (onlyCommon(w) ? MAX_SCORED_COMMON : MAX_SCORED);

/**
 * The order a text list takes its matches in before it scores the first maxScored: none when a
 * term is rare (the full-text index finds every match), the dataset's key (`alias`.id: a random
 * sample, as ids are random) when none is. Without it the planner read such a question's matches
 * by a scan of the whole table, stopping at the hundredth: cheap when the dataset's rows come
 * first in the table, and as dear as every row of the datasets stored before it otherwise (10,099
 * rows of another dataset read before the first match at 100k facts; a large table of many
 * datasets, all of it). By the key's index it reads the dataset's rows alone: at most about
 * MAX_SCORED_COMMON × 5 of them, as every term is in more than a fifth.
 */
export const matchOrder = (w: TermWeights, alias: SQL) => (onlyCommon(w) ? sql`ORDER BY ${alias}.id` : sql``);

/**
 * Embedding neighbours further than this (cosine distance; 1 = unrelated) are not candidates:
 * the nearest rows of a dataset are not an answer to a question about something else.
 */
export const MAX_DISTANCE = 0.75;

/** The question's embedding if the vector lists can use it (of the stored size, not all zero). */
export function questionVector(q: ListQuery): number[] | null {
  const v = q.vector;
  return v && v.length === q.dimensions && v.some((x) => x !== 0) ? v : null;
}

/**
 * Of the rows of the question's cells, the nearest by their bits that a vector list reads whole
 * (what `where` keeps, a chunk's validity for one: a lookup per row), per row it ranks by the
 * cosine: twice as many as it ranks, so that as many as it needs pass even where half do not.
 */
const NEAREST_BY_BITS = 2;

/**
 * A vector list's statement: the rows of `from` (whose embedding is `alias`.embedding) that
 * `where` keeps, nearest the question's vector `v` first, at most `limit`, none further than
 * MAX_DISTANCE; `columns` and their distance `d`. With pgvector, the HNSW index orders them;
 * without, the rows of the question's cells are ordered by their sign bits and the nearest
 * RESCORE × limit of those by the cosine (db/vector-cells.ts).
 */
export function nearestSql(q: ListQuery, v: number[], o: { kind: VectorKind; alias: SQL; columns: SQL; from: SQL; where: SQL; limit: number }): SQL {
  const embedding = sql`${o.alias}.embedding`;
  const opts = { pgvector: q.pgvector, dimensions: q.dimensions };
  const where = sql`${o.where} AND ${vectorRows(embedding, q.dimensions)}`;
  if (q.pgvector) {
    const distance = cosineDistance(embedding, v, opts);
    return sql`SELECT * FROM (
          SELECT ${o.columns}, ${distance} AS d FROM ${o.from} WHERE ${where} ORDER BY ${distance} LIMIT ${o.limit}
        ) n WHERE d <= ${MAX_DISTANCE}`;
  }
  const cells = cellSearch(o.alias, o.kind, q.datasetId, v);
  return sql`SELECT * FROM (
        SELECT *, ${cosineDistance(sql`h.gb_embedding`, v, opts)} AS d FROM (
          SELECT ${o.columns}, ${embedding} AS gb_embedding FROM ${o.from}
          WHERE ${where} AND ${cells.nearest(NEAREST_BY_BITS * RESCORE * o.limit)} ORDER BY ${cells.order} LIMIT ${RESCORE * o.limit}
        ) h ORDER BY d LIMIT ${o.limit}
      ) n WHERE d <= ${MAX_DISTANCE}`;
}
