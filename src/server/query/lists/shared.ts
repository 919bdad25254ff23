import { type SQL, sql } from "drizzle-orm";
import { cellSearch, PROBE, RESCORE, type VectorKind } from "../../db/vector-cells";
import type { MemoHit } from "../../db/vector-memo";
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
 * The condition that bounds the rows a text list reads its matches from (`alias`.id). When a
 * term is rare, none: the full-text index finds every match. When none is, a sample: the
 * dataset's rows whose key falls in the first share of the key space that holds about
 * COMMON_SAMPLE of its chunks (a random sample, as ids are random), read in key order by the
 * primary key, the list taking its first maxScored matches. Every term is in more than a fifth
 * of the rows, so about MAX_SCORED_COMMON × 5 rows hold that many matches (fewer are scored
 * where they do not; a dataset of fewer chunks is read whole).
 *
 * Written so that any plan reads the sample, whatever it knows of the dataset or the terms: the
 * lists' one statement is planned once for every question of its shape (#16, retrieve.ts). Only
 * the primary key holds the id, and a range of it with both ends given is estimated at a two
 * hundredth of the rows by a plan made without the values. "The first matches in key order"
 * (ORDER BY id) was read, planned so, by the full-text index, every match sorted (6,320 rows
 * against 428 at 6,000 facts), and "the first rows in key order" by a dataset_id full-text index
 * and sorted (PGlite: 3,000 chunks). Without any order, the planner read such a question's matches
 * by a scan of the whole table, stopping at the hundredth: as dear as every row of the datasets
 * stored before this one (10,099 rows at 100k facts).
 */
export function sampled(w: TermWeights, alias: SQL): SQL {
  if (!onlyCommon(w)) return sql`TRUE`;
  return sql`${alias}.id BETWEEN ${"00000000-0000-0000-0000-000000000000"}::uuid AND ${keyAtShare(COMMON_SAMPLE / Math.max(1, w.chunks))}::uuid`;
}

/** The rows of a sample of a question of only common words (sampled), as chunks. */
export const COMMON_SAMPLE = 5 * MAX_SCORED_COMMON;

/**
 * The order a text list takes its matches in: none when a term is rare, the key's when none is
 * (the sample's order, sampled): a plan for the values then reads the sample by the primary key,
 * where the range alone, a large share of a small dataset, let it scan the table from its start
 * (the rows of every dataset stored before this one).
 */
export const matchOrder = (w: TermWeights, alias: SQL) => (onlyCommon(w) ? sql`ORDER BY ${alias}.id` : sql``);

/** The uuid below which `share` (0 to 1) of the key space lies. */
export function keyAtShare(share: number): string {
  const all = 2n ** 128n;
  const parts = 1_000_000_000n;
  const key = share >= 1 ? all - 1n : (all * BigInt(Math.max(0, Math.round(share * Number(parts))))) / parts;
  const hex = key.toString(16).padStart(32, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

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
 * A vector list's statement: the rows of `table` (named `alias`, whose embedding is
 * `alias`.embedding) with their text (`text`: the join that names it t) that `where` keeps,
 * nearest the question's vector `v` first, at most `limit`, none further than MAX_DISTANCE;
 * `columns` and their distance `d`. With pgvector, the HNSW index orders them; without, the rows
 * of the question's cells are ordered by their sign bits and the nearest RESCORE × limit of those
 * by the cosine (db/vector-cells.ts). Where `where` reads no text (`readsText` false), each row's
 * text is looked up for the `limit` rows kept alone: for all RESCORE × 2 × limit rows the bits
 * chose, it was a sixth of the list (0.9 ms at 100k facts).
 */
export function nearestSql(
  q: ListQuery,
  v: number[],
  o: { kind: VectorKind; alias: SQL; table: SQL; text: SQL; columns: SQL; where: SQL; readsText: boolean; limit: number },
): SQL {
  const embedding = sql`${o.alias}.embedding`;
  const opts = { pgvector: q.pgvector, dimensions: q.dimensions };
  const where = sql`${o.where} AND ${vectorRows(embedding, q.dimensions)}`;
  const from = sql`${o.table} ${o.alias} ${o.text}`;
  if (q.pgvector) {
    const distance = cosineDistance(embedding, v, opts);
    return sql`SELECT * FROM (
          SELECT ${o.columns}, ${distance} AS d FROM ${from} WHERE ${where} ORDER BY ${distance} LIMIT ${o.limit}
        ) n WHERE d <= ${MAX_DISTANCE}`;
  }
  const hit = q.memo?.search(q.db, q.datasetId, o.kind, v, RESCORE * o.limit, NEAREST_BY_BITS * RESCORE * o.limit) ?? null;
  if (hit) return withCopiedCells(q, v, o, hit);
  const cells = cellSearch(o.alias, o.kind, q.datasetId, v);
  const nearest = sql`${cells.nearest(NEAREST_BY_BITS * RESCORE * o.limit)} ORDER BY ${cells.order} LIMIT ${RESCORE * o.limit}`;
  if (o.readsText) {
    return sql`SELECT * FROM (
          SELECT *, ${cosineDistance(sql`h.gb_embedding`, v, opts)} AS d FROM (
            SELECT ${o.columns}, ${embedding} AS gb_embedding FROM ${from} WHERE ${where} AND ${nearest}
          ) h ORDER BY d LIMIT ${o.limit}
        ) n WHERE d <= ${MAX_DISTANCE}`;
  }
  return sql`SELECT ${o.columns}, ${o.alias}.d FROM (
        SELECT * FROM (
          SELECT *, ${cosineDistance(sql`h.embedding`, v, opts)} AS d FROM (
            SELECT ${o.alias}.* FROM ${o.table} ${o.alias} WHERE ${where} AND ${nearest}
          ) h ORDER BY d LIMIT ${o.limit}
        ) h WHERE d <= ${MAX_DISTANCE}
      ) ${o.alias} ${o.text} ORDER BY ${o.alias}.d`;
}

const bigintArray = (xs: number[]) => sql`${`{${xs.join(",")}}`}::bigint[]`;

/**
 * nearestSql without pgvector when the process holds a copy of some of the question's cells
 * (db/vector-memo.ts). The candidates are the copy's nearest rows of the cells whose version is
 * still the copied one, with their distances, and, from the table as without the copy, the rows of
 * the question's other cells and of no cell (a row found both ways, moved out of a cell by hand
 * rather than by placeInCells, is one). They are looked up by key nearest first with the list's
 * conditions until `limit` pass: the copy's 120 rows were all looked up before (1.6 ms of a list at
 * 100k facts), where about `limit` are now.
 */
function withCopiedCells(
  q: ListQuery,
  v: number[],
  o: { kind: VectorKind; alias: SQL; table: SQL; text: SQL; columns: SQL; where: SQL; readsText: boolean; limit: number },
  hit: MemoHit,
): SQL {
  const opts = { pgvector: false, dimensions: q.dimensions };
  const embedding = sql`${o.alias}.embedding`;
  const where = sql`${o.where} AND ${vectorRows(embedding, q.dimensions)}`;
  // the copied cells whose version is still the copied one (an array, worked out once)
  const fresh = sql`ARRAY(SELECT gb_v.id FROM unnest(${bigintArray(hit.cells)}, ${bigintArray(hit.versions)}) AS gb_v(id, version)
      JOIN gb_vector_pivots gb_p ON gb_p.dataset_id = ${q.datasetId} AND gb_p.id = gb_v.id AND gb_p.version = gb_v.version)`;
  const cells = cellSearch(o.alias, o.kind, q.datasetId, v, PROBE, { probe: hit.probe, generation: hit.generation, fresh });
  const nearest = sql`${cells.nearest(NEAREST_BY_BITS * RESCORE * o.limit)} ORDER BY ${cells.order} LIMIT ${RESCORE * o.limit}`;
  const from = o.readsText ? sql`${o.table} ${o.alias} ${o.text}` : sql`${o.table} ${o.alias}`;
  // the candidates, nearest first: the copy's of the cells still as copied, and the table's of the others
  const candidates = sql`SELECT gb_u.id, min(gb_u.d) AS d FROM (
      SELECT gb_m.id, gb_m.d FROM unnest(${uuidArray(hit.ids)}, ${`{${hit.distances.join(",")}}`}::float8[], ${bigintArray(hit.rowCells)}) AS gb_m(id, d, cell)
      WHERE gb_m.cell = ANY (${fresh})
      UNION ALL
      SELECT h.id, ${cosineDistance(sql`h.embedding`, v, opts)} AS d FROM (
        SELECT ${o.alias}.id, ${embedding} FROM ${from} WHERE ${where} AND ${nearest}
      ) h
    ) gb_u GROUP BY gb_u.id ORDER BY d`;
  // each looked up by key in that order with the list's conditions, until `limit` pass (a lateral
  // lookup keeps the order, so the rows after those are never read)
  const lookup = (columns: SQL, tables: SQL) =>
    sql`CROSS JOIN LATERAL (SELECT ${columns} FROM ${tables} WHERE ${o.alias}.dataset_id = ${q.datasetId} AND ${o.alias}.id = gb_c.id AND ${where} OFFSET 0) ${o.alias}`;
  if (o.readsText) {
    return sql`SELECT ${o.alias}.*, gb_c.d FROM (${candidates}) gb_c ${lookup(o.columns, from)}
        WHERE gb_c.d <= ${MAX_DISTANCE} ORDER BY gb_c.d LIMIT ${o.limit}`;
  }
  return sql`SELECT ${o.columns}, ${o.alias}.d FROM (
        SELECT ${o.alias}.*, gb_c.d FROM (${candidates}) gb_c ${lookup(sql`${o.alias}.*`, from)}
        WHERE gb_c.d <= ${MAX_DISTANCE} ORDER BY gb_c.d LIMIT ${o.limit}
      ) ${o.alias} ${o.text} ORDER BY ${o.alias}.d`;
}
