import { type SQL, sql } from "drizzle-orm";
import type { Db } from "./client";
import { column, queryRows, rowDecoder } from "./rows";

/*
 * Vector search where pgvector is absent (a Postgres server without the extension; PGlite ships
 * it). The exact cosine over real[] (gb_cosine_distance; cosineDistance in vector.ts, about a
 * third cheaper) costs 30 to 45 µs a row on this machine's server, so scanning a dataset's embeddings took 0.75 s a question at 10k facts and
 * grew with the dataset. Instead:
 *
 * - each embedding's sign bits (embedding_bits, a generated column: gb_sign_bits, migration
 *   0021) rank rows by Hamming distance (bit_count(a # b)) at about 1 µs a row;
 * - a dataset of MIN_ROWS rows or more of a kind (chunks, facts, entities) has pivots: rows of its own
 *   chosen at random, one per CELL_ROWS rows (at most MAX_PIVOTS), each the centre of a cell; the
 *   maintenance loop (placeInCells) puts every row in the cell of its nearest pivot by those bits;
 * - a question reads the PROBE cells whose pivots are nearest its own bits, and the rows in no
 *   cell yet (stored since the last pass), takes the RESCORE × limit nearest of them by Hamming
 *   distance, and ranks those by the exact cosine.
 *
 * So a question reads about PROBE × CELL_ROWS rows however large the dataset, up to MAX_PIVOTS
 * cells. When the dataset has grown fourfold since its pivots were chosen, a new generation is
 * chosen; the rows of the older cells move a batch at a time, and a question probes the PROBE
 * nearest pivots of each generation meanwhile, so every row stays reachable. The cells are recall traded for
 * speed, as pgvector's HNSW index is: see vector-cells.test.ts for the recall measured.
 */

/** below this many rows of a kind, a dataset has no cells: its rows are read whole (by bits) */
export const MIN_ROWS = 1_000;
/** rows per cell when its generation is chosen */
export const CELL_ROWS = 100;
export const MAX_PIVOTS = 1_024;
/**
 * The cells a question reads. With 8, the 30 nearest of 4,000 facts were found 0.71-0.88 of the
 * time on embeddings of pseudo-random components clustered by topic (vector-cells.test.ts: two
 * draws of the pivots); with 16, 0.82-0.99 over twelve draws (0.93 on average). The test's
 * embeddings had been sums of a few sinusoids, whose sign bits are far more alike than a model's,
 * and 8 sufficed for those.
 */
export const PROBE = 16;
/** the rows, per row asked for, ranked by the exact cosine after the Hamming distance chose them */
export const RESCORE = 4;
/** the rows a pass of placeInCells moves, per dataset and kind */
export const PLACE_BATCH = 2_000;
/** a row whose size no pivot has (the embeddings changed size): read with the rows in no cell */
const NO_CELL = 0;

export type VectorKind = "chunk" | "fact" | "entity";
export const TABLES: Record<VectorKind, SQL> = { chunk: sql`gb_chunks`, fact: sql`gb_facts`, entity: sql`gb_entities` };

/** A vector's sign bits as a bit-string literal: one per dimension, 1 where it is positive (as gb_sign_bits). */
export function signBits(v: readonly number[]): string {
  return v.map((x) => (x > 0 ? "1" : "0")).join("");
}

/**
 * What a copy of the cells in memory says of a question (db/vector-memo.ts): its cells by the
 * copy's pivots, and the newest generation of those; `fresh`, an array of the cells whose rows the
 * copy gives (their version still the copied one).
 */
export interface CopiedCells {
  probe: number[];
  generation: number;
  fresh: SQL;
}

/**
 * The condition and order that choose a vector list's rows without pgvector (the rows of
 * `alias`, a gb_chunks, gb_facts or gb_entities row): in the cells nearest the question, or in
 * none; nearest first by sign bits. The query's vector lists search chunks and facts; remember's
 * load_candidates, entities (one named otherwise that means the same).
 */
export function cellSearch(
  alias: SQL,
  kind: VectorKind,
  datasetId: string,
  vector: readonly number[],
  cellsRead = PROBE,
  copy: CopiedCells | null = null,
): { where: SQL; nearest: (take: number) => SQL; order: SQL } {
  const bits = sql`${signBits(vector)}::varbit`;
  // the nearest cells of each generation (two while rows move to a new one): a row still in an
  // older cell is found by that generation's pivots, which a newer, denser one would crowd out
  const nearestPivots = sql`ARRAY(SELECT x.id FROM (SELECT DISTINCT generation FROM gb_vector_pivots WHERE dataset_id = ${datasetId} AND kind = ${kind}) g
      CROSS JOIN LATERAL (
        SELECT p.id FROM gb_vector_pivots p
        WHERE p.dataset_id = ${datasetId} AND p.kind = ${kind} AND p.generation = g.generation AND length(p.bits) = ${vector.length}::int
        ORDER BY bit_count(p.bits # ${bits}) LIMIT ${cellsRead}
      ) x)`;
  // with a copy in memory: its cells for the question, while its pivots are the table's (no newer
  // generation: a generation's pivots are written in one statement and never change), which
  // spares ranking them here
  const probe = copy
    ? sql`CASE WHEN (SELECT g.generation FROM gb_vector_pivots g WHERE g.dataset_id = ${datasetId} AND g.kind = ${kind} ORDER BY g.generation DESC LIMIT 1) = ${copy.generation}::int
        THEN ${`{${copy.probe.join(",")}}`}::bigint[] ELSE ${nearestPivots} END`
    : nearestPivots;
  // the rows of those cells and of no cell, each cell by its index (an OR of the three on the
  // row itself let the planner read the whole dataset and test each row: 21 ms at 5,000 chunks),
  // and the rows not yet placed (a small dataset's all: its todo index)
  const table = TABLES[kind];
  // less the cells whose rows the copy gives
  const rows = sql`SELECT r.id, r.embedding_bits FROM ${copy ? sql`(SELECT u.cell FROM unnest(${probe} || ${NO_CELL}::bigint) AS u(cell) WHERE u.cell <> ALL (${copy.fresh})) p` : sql`unnest(${probe} || ${NO_CELL}::bigint) AS p(cell)`}
      CROSS JOIN LATERAL (SELECT r.id, r.embedding_bits FROM ${table} r WHERE r.dataset_id = ${datasetId} AND r.embedding_cell = p.cell OFFSET 0) r
      UNION ALL
      SELECT r.id, r.embedding_bits FROM ${table} r WHERE r.dataset_id = ${datasetId} AND r.embedding_cell IS NULL AND r.embedding_bits IS NOT NULL`;
  const order = (a: SQL) => sql`bit_count(${a}.embedding_bits # ${bits})`;
  return {
    where: sql`${alias}.id IN (SELECT id FROM (${rows}) r)`,
    nearest: (take) => sql`${alias}.id IN (SELECT r.id FROM (${rows}) r ORDER BY ${order(sql`r`)} LIMIT ${take})`,
    order: order(alias),
  };
}

const generationRow = rowDecoder({ generation: column.int, rows: column.int, first: column.int });
const countRow = rowDecoder({ n: column.int });
const todoRow = rowDecoder({ dataset_id: column.text });

/** The newest generation of a dataset's pivots of a kind: its number, the rows it was chosen at, its first cell id. */
async function newest(db: Db, datasetId: string, kind: VectorKind) {
  const [g] = await queryRows(
    db,
    sql`SELECT generation, min(rows) AS rows, min(id) AS first FROM gb_vector_pivots
        WHERE dataset_id = ${datasetId} AND kind = ${kind} GROUP BY generation ORDER BY generation DESC LIMIT 1`,
    generationRow,
  );
  return g ?? null;
}

/**
 * Chooses a dataset's pivots of a kind when it has none and MIN_ROWS rows, or has grown fourfold
 * since its newest were chosen; under a transaction lock, so that two processes do not both.
 */
async function choosePivots(db: Db, datasetId: string, kind: VectorKind): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`gb_vector_pivots:${datasetId}:${kind}`}))`);
    const [total] = await queryRows(tx, sql`SELECT count(*)::int AS n FROM ${TABLES[kind]} WHERE dataset_id = ${datasetId} AND embedding_bits IS NOT NULL`, countRow);
    const n = total?.n ?? 0;
    const g = await newest(tx, datasetId, kind);
    if (n < MIN_ROWS || (g && n < 4 * g.rows)) return;
    const pivots = Math.min(MAX_PIVOTS, Math.ceil(n / CELL_ROWS));
    // rows at random, of the size most of them have
    await tx.execute(sql`
      WITH s AS (
        SELECT embedding_bits AS b FROM ${TABLES[kind]} WHERE dataset_id = ${datasetId} AND embedding_bits IS NOT NULL ORDER BY random() LIMIT ${pivots}
      ), m AS (SELECT length(b) AS l FROM s GROUP BY 1 ORDER BY count(*) DESC LIMIT 1)
      INSERT INTO gb_vector_pivots (dataset_id, kind, generation, rows, bits)
      SELECT ${datasetId}, ${kind}, ${(g?.generation ?? 0) + 1}, ${n}, b FROM s WHERE length(b) = (SELECT l FROM m)`);
  });
}

/**
 * Moves up to `batch` rows of a dataset's kind into the cells of its newest pivots: rows in no
 * cell, and rows in an older generation's. Rows another transaction holds are skipped (a
 * remember writing them), never waited for. Once no row is left in an older cell, the older
 * pivots are deleted. Returns how many rows it moved.
 */
async function placeBatch(db: Db, datasetId: string, kind: VectorKind, batch: number): Promise<number> {
  const g = await newest(db, datasetId, kind);
  if (!g) return 0;
  const table = TABLES[kind];
  const [moved] = await queryRows(
    db,
    sql`WITH todo AS (
          SELECT dataset_id, id, embedding_cell AS was FROM ${table}
          WHERE dataset_id = ${datasetId} AND embedding_bits IS NOT NULL
            AND (embedding_cell IS NULL OR (embedding_cell <> ${NO_CELL} AND embedding_cell < ${g.first}))
          LIMIT ${batch} FOR UPDATE SKIP LOCKED
        ), placed AS (
          UPDATE ${table} r SET embedding_cell = coalesce((
            SELECT p.id FROM gb_vector_pivots p
            WHERE p.dataset_id = r.dataset_id AND p.kind = ${kind} AND p.generation = ${g.generation} AND length(p.bits) = length(r.embedding_bits)
            ORDER BY bit_count(p.bits # r.embedding_bits) LIMIT 1), ${NO_CELL})
          FROM todo WHERE r.dataset_id = todo.dataset_id AND r.id = todo.id
          RETURNING r.embedding_cell AS cell, todo.was
        ), touched AS (
          -- the cells rows entered and left: their copies in memory are stale (vector-memo.ts)
          UPDATE gb_vector_pivots p SET version = p.version + 1
          WHERE p.dataset_id = ${datasetId} AND p.id IN (SELECT cell FROM placed UNION SELECT was FROM placed)
        )
        SELECT count(*)::int AS n FROM placed`,
    countRow,
  );
  const n = moved?.n ?? 0;
  if (n < batch && g.generation > 1) {
    // no row left in an older cell (none skipped as locked either): its pivots go
    const [left] = await queryRows(
      db,
      sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table} WHERE dataset_id = ${datasetId} AND embedding_cell > ${NO_CELL} AND embedding_cell < ${g.first} LIMIT 1) x`,
      countRow,
    );
    if (left?.n === 0) await db.execute(sql`DELETE FROM gb_vector_pivots WHERE dataset_id = ${datasetId} AND kind = ${kind} AND generation < ${g.generation}`);
  }
  return n;
}

/**
 * One pass of the maintenance loop where pgvector is absent: for each dataset with rows in no
 * cell or in an older generation's (a few datasets a pass), chooses pivots if it is time, and
 * moves a batch of rows. Returns the rows moved.
 */
export async function placeInCells(db: Db, batch = PLACE_BATCH): Promise<number> {
  let moved = 0;
  for (const kind of ["chunk", "fact", "entity"] as const) {
    const table = TABLES[kind];
    const todo = await queryRows(
      db,
      // rows in no cell, of datasets with cells or with enough of them to need some (a dataset
      // too small for cells is read whole, and left out here)
      sql`SELECT dataset_id FROM (
            SELECT dataset_id FROM ${table} WHERE embedding_cell IS NULL AND embedding_bits IS NOT NULL LIMIT 100000
          ) x GROUP BY dataset_id
          HAVING count(*) >= ${MIN_ROWS} OR EXISTS (SELECT 1 FROM gb_vector_pivots p WHERE p.dataset_id = x.dataset_id AND p.kind = ${kind})
          UNION
          SELECT dataset_id FROM gb_vector_pivots WHERE kind = ${kind} GROUP BY dataset_id HAVING count(DISTINCT generation) > 1
          LIMIT 8`,
      todoRow,
    );
    for (const { dataset_id } of todo) {
      await choosePivots(db, dataset_id, kind);
      moved += await placeBatch(db, dataset_id, kind, batch);
    }
  }
  return moved;
}
