import { sql } from "drizzle-orm";
import type { Db } from "./client";
import { column, queryRows, rowDecoder } from "./rows";
import { PROBE, TABLES, type VectorKind } from "./vector-cells";

/*
 * The vector cells in memory, where pgvector is absent (#16). Without it a vector list read its
 * question's cells from the table, ranked their rows by sign bits and 120 of them by the exact
 * cosine in SQL: 5 to 6 ms of the server's time a list at 100k facts (24 µs a row for the cosine),
 * where a question's whole overhead was to be 5 ms. Each process now keeps a copy of the cells its
 * questions read (the rows' ids, embeddings and sign bits, cell by cell), ranks a question's cells
 * here (well under a millisecond), and hands the statement the nearest rows with their distances.
 *
 * The copy is never trusted beyond what the database says in the same statement: each cell is
 * copied with its version (gb_vector_pivots.version, raised in the statement that moves a row into
 * or out of the cell, vector-cells.ts), and the question's statement takes the copy's rows of a
 * cell only while the cell's version is the copied one; the cells whose version moved, those not
 * copied yet, and the rows in no cell are read from the table as before. The rows it takes are
 * looked up by key with the list's own conditions, so a row deleted since is not found. So a
 * question finds what it found without the copy, whatever the copy's age.
 *
 * A copy is brought up to date in the background, at most every REFRESH_MS while questions use it:
 * one statement lists the cells' versions; the cells that moved are read again, LOAD_CELLS at a
 * time, each with its version in the same statement. Copies are kept within GB_VECTOR_MEMO_MB; the
 * least recently used go first, and a dataset the bound cannot hold is searched in the table.
 */

/** how often a copy that questions use asks for its cells' versions */
export const REFRESH_MS = 1_000;
/** after a failed refresh, how long a copy waits before the next */
const RETRY_MS = 10_000;
/**
 * Cells read per statement when copying (about 100 rows each). Each batch is decoded at once; with
 * 40, questions asked while a 100k-fact dataset was being copied (by both processes of npm start)
 * waited 0.5 to 2.5 s; with 8, a pause between batches and a faster decode, 0.1 to 1.3 s, for the
 * 7 s the copy lasts (0.4-0.6 s for the first question without a copy, then 40-60 ms).
 */
const LOAD_CELLS = 8;
/** the pause between two batches of a copy */
const COPY_PAUSE_MS = 15;
/** what a row's id string and its place in the arrays cost beside its numbers (an estimate) */
const ROW_OVERHEAD_BYTES = 96;

/** The rows of one cell as copied. */
interface Cell {
  version: number;
  ids: string[];
  /** the rows' embeddings, `dims` numbers each */
  vectors: Float32Array;
  norms: Float64Array;
  /** the rows' sign bits, `words` 32-bit words each */
  bits: Int32Array;
  bytes: number;
}

/** The copy of a dataset's cells of a kind and size. */
class Copy {
  /** every pivot of the size, by cell id: its generation and sign bits */
  readonly pivots = new Map<number, { generation: number; bits: Int32Array }>();
  /** the pivots by generation, their bits side by side (made from `pivots` when they change) */
  generations: { generation: number; ids: number[]; bits: Int32Array }[] | null = null;
  readonly cells = new Map<number, Cell>();
  bytes = 0;
  usedAt = 0;
  checkedAt = 0;
  failedAt = -Infinity;
  busy: Promise<void> | null = null;
  constructor(
    readonly key: string,
    readonly datasetId: string,
    readonly kind: VectorKind,
    readonly dims: number,
  ) {}
}

/** What a copy found for a question: a vector list's statement takes it (lists/shared.ts, nearestSql). */
export interface MemoHit {
  /** the question's cells by the copy's pivots (copied or not), and the newest generation of those */
  probe: number[];
  generation: number;
  /** the question's cells the copy holds, and the version each was copied at */
  cells: number[];
  versions: number[];
  /** of those cells' rows, the nearest the question by the cosine, nearest first; each row's cell */
  ids: string[];
  distances: number[];
  rowCells: number[];
}

/** Counts of what the copies did, for tests and the bench. */
export interface MemoStats {
  copies: number;
  cells: number;
  rows: number;
  bytes: number;
  /** cells read from the database since the memo began */
  cellsRead: number;
  refreshes: number;
  failures: number;
}

const pivotRow = rowDecoder({ id: column.int, generation: column.int, version: column.int, bits: column.nullable(column.text) });
const cellRow = rowDecoder({
  cell: column.int,
  version: column.int,
  id: column.nullable(column.text),
  embedding: column.nullable(column.text),
});

const words = (dims: number) => Math.ceil(dims / 32);

/** A vector's sign bits (1 where a component is positive, as gb_sign_bits), in 32-bit words, written at `out[at]`. */
function signWords(v: ArrayLike<number>, out: Int32Array, at: number): void {
  for (let k = 0; k < v.length; k++) if (v[k]! > 0) out[at + (k >>> 5)]! |= 1 << (k & 31);
}

/** A varbit's text ("0110…"), in the words signWords writes. */
function textWords(text: string): Int32Array {
  const out = new Int32Array(words(text.length));
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 49) out[k >>> 5]! |= 1 << (k & 31);
  return out;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

function hamming(a: Int32Array, at: number, b: Int32Array, n: number): number {
  let d = 0;
  for (let w = 0; w < n; w++) d += popcount(a[at + w]! ^ b[w]!);
  return d;
}

/**
 * A real[]'s binary form (array_send, base64 as encode gives it) as `dims` numbers at `out[at]`;
 * false when it is not a one-dimensional float4 array of that size without nulls.
 */
export function decodeArraySend(base64: string, dims: number, out: Float32Array, at: number): boolean {
  const b = Buffer.from(base64, "base64");
  // ndim, has-nulls flag, element type, then (size, lower bound) per dimension, then (length, value) per element
  if (b.length !== 20 + 8 * dims || b.readInt32BE(0) !== 1 || b.readInt32BE(12) !== dims) return false;
  // every 32-bit word to this machine's order at once, then read as numbers (a word at a time was a copy's most time)
  const words = new Uint8Array(b).buffer;
  Buffer.from(words).swap32();
  const lengths = new Int32Array(words);
  const values = new Float32Array(words);
  for (let k = 0; k < dims; k++) {
    if (lengths[5 + 2 * k] !== 4) return false;
    out[at + k] = values[6 + 2 * k]!;
  }
  return true;
}

export class VectorMemo {
  private readonly copies = new Map<string, Copy>();
  private bytes = 0;
  private cellsRead = 0;
  private refreshes = 0;
  private failures = 0;
  private closed = false;

  /**
   * @param maxBytes the most the copies hold (GB_VECTOR_MEMO_MB); 0: none, every question reads the table
   * @param onError told of a refresh that failed (the copy is left as it was and tried again later)
   */
  constructor(
    private readonly maxBytes: number,
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  /**
   * The copy's answer for a question's vector `v` over the dataset's rows of `kind`: the `take`
   * nearest by the cosine of the `byBits` nearest by sign bits in the question's copied cells; null
   * when none of them is copied yet. Starts bringing the copy up to date in the background (on `db`)
   * when it is time; never waits for it.
   */
  search(db: Db, datasetId: string, kind: VectorKind, v: readonly number[], take: number, byBits: number): MemoHit | null {
    if (this.maxBytes <= 0 || this.closed) return null;
    const copy = this.copyOf(datasetId, kind, v.length);
    const now = Date.now();
    copy.usedAt = now;
    if (!copy.busy && now - copy.checkedAt >= REFRESH_MS && now - copy.failedAt >= RETRY_MS) this.startRefresh(db, copy);
    return copy.cells.size ? nearest(copy, v, take, byBits) : null;
  }

  /** Brings the copy of a dataset's rows of a kind and size up to date now (tests; the bench's warm-up). */
  async refresh(db: Db, datasetId: string, kind: VectorKind, dims: number): Promise<void> {
    const copy = this.copyOf(datasetId, kind, dims);
    copy.usedAt = Date.now();
    while (copy.busy) await copy.busy;
    this.startRefresh(db, copy);
    await copy.busy;
  }

  /** Starts no more refreshes and waits for those in flight (before the database closes). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.copies.values()].map((c) => c.busy));
  }

  stats(): MemoStats {
    let cells = 0;
    let rows = 0;
    for (const copy of this.copies.values()) {
      cells += copy.cells.size;
      for (const c of copy.cells.values()) rows += c.ids.length;
    }
    return { copies: this.copies.size, cells, rows, bytes: this.bytes, cellsRead: this.cellsRead, refreshes: this.refreshes, failures: this.failures };
  }

  private copyOf(datasetId: string, kind: VectorKind, dims: number): Copy {
    const key = `${datasetId}:${kind}:${dims}`;
    let copy = this.copies.get(key);
    if (!copy) {
      copy = new Copy(key, datasetId, kind, dims);
      this.copies.set(key, copy);
    }
    return copy;
  }

  private startRefresh(db: Db, copy: Copy): void {
    copy.checkedAt = Date.now();
    copy.busy = this.refreshCopy(db, copy)
      .catch((e: unknown) => {
        copy.failedAt = Date.now();
        this.failures++;
        if (!this.closed) this.onError(e);
      })
      .finally(() => {
        copy.busy = null;
        copy.checkedAt = Date.now();
      });
  }

  private async refreshCopy(db: Db, copy: Copy): Promise<void> {
    this.refreshes++;
    const table = TABLES[copy.kind];
    let known = 0;
    for (const id of copy.pivots.keys()) known = Math.max(known, id);
    // every pivot of the size, with its bits if it is new (a pivot's bits never change; later ids are greater)
    const listed = await queryRows(
      db,
      sql`SELECT id, generation, version, CASE WHEN id > ${known}::bigint THEN bits::text END AS bits FROM gb_vector_pivots
          WHERE dataset_id = ${copy.datasetId} AND kind = ${copy.kind} AND length(bits) = ${copy.dims}::int`,
      pivotRow,
    );
    const now = new Set(listed.map((p) => p.id));
    for (const id of [...copy.pivots.keys()]) {
      if (now.has(id)) continue;
      copy.pivots.delete(id);
      copy.generations = null;
    }
    for (const [id, cell] of [...copy.cells]) if (!now.has(id)) this.drop(copy, id, cell);
    for (const p of listed) {
      if (p.bits === null || copy.pivots.has(p.id)) continue;
      copy.pivots.set(p.id, { generation: p.generation, bits: textWords(p.bits) });
      copy.generations = null;
    }
    const stale = listed.filter((p) => copy.pivots.has(p.id) && copy.cells.get(p.id)?.version !== p.version).map((p) => p.id);
    const rowBytes = copy.dims * 4 + words(copy.dims) * 4 + 8 + ROW_OVERHEAD_BYTES;
    for (let i = 0; i < stale.length; i += LOAD_CELLS) {
      // questions first: what arrived meanwhile is answered before the next batch
      if (i > 0) await new Promise<void>((resolve) => setTimeout(resolve, COPY_PAUSE_MS));
      // closing: the rest is left (a copy of 100k facts takes seconds, and stopping waits for this)
      if (this.closed) return;
      const batch = stale.slice(i, i + LOAD_CELLS);
      // room for about a hundred rows a cell, made by letting the least recently used copies go
      if (!this.makeRoom(copy, batch.length * 100 * rowBytes)) return;
      const rows = await queryRows(
        db,
        sql`SELECT p.id AS cell, p.version, r.id, encode(array_send(r.embedding), 'base64') AS embedding
            FROM gb_vector_pivots p
            LEFT JOIN ${table} r ON r.dataset_id = p.dataset_id AND r.embedding_cell = p.id AND array_length(r.embedding, 1) = ${copy.dims}::int
            WHERE p.dataset_id = ${copy.datasetId} AND p.id = ANY(${`{${batch.join(",")}}`}::bigint[])`,
        cellRow,
      );
      const byCell = new Map<number, { version: number; ids: string[]; embeddings: string[] }>();
      for (const r of rows) {
        let c = byCell.get(r.cell);
        if (!c) byCell.set(r.cell, (c = { version: r.version, ids: [], embeddings: [] }));
        if (r.id !== null && r.embedding !== null) {
          c.ids.push(r.id);
          c.embeddings.push(r.embedding);
        }
      }
      for (const id of batch) {
        const old = copy.cells.get(id);
        if (old) this.drop(copy, id, old);
        const got = byCell.get(id);
        // a cell deleted since it was listed: its generation is gone
        if (!got) continue;
        const cell = makeCell(got.version, got.ids, got.embeddings, copy.dims, rowBytes);
        copy.cells.set(id, cell);
        copy.bytes += cell.bytes;
        this.bytes += cell.bytes;
        this.cellsRead++;
      }
    }
  }

  private drop(copy: Copy, id: number, cell: Cell): void {
    copy.cells.delete(id);
    copy.bytes -= cell.bytes;
    this.bytes -= cell.bytes;
  }

  /** Lets the least recently used copies other than `copy` go until `need` more bytes fit; false if they cannot. */
  private makeRoom(copy: Copy, need: number): boolean {
    while (this.bytes + need > this.maxBytes) {
      let oldest: Copy | null = null;
      for (const c of this.copies.values()) if (c !== copy && c.bytes > 0 && (!oldest || c.usedAt < oldest.usedAt)) oldest = c;
      if (!oldest) return false;
      for (const [id, cell] of [...oldest.cells]) this.drop(oldest, id, cell);
      oldest.pivots.clear();
      oldest.generations = null;
      this.copies.delete(oldest.key);
    }
    return true;
  }
}

function makeCell(version: number, ids: string[], embeddings: string[], dims: number, rowBytes: number): Cell {
  const n = ids.length;
  const w = words(dims);
  const vectors = new Float32Array(n * dims);
  const norms = new Float64Array(n);
  const bits = new Int32Array(n * w);
  const kept: string[] = [];
  for (let i = 0; i < n; i++) {
    const at = kept.length;
    if (!decodeArraySend(embeddings[i]!, dims, vectors, at * dims)) continue;
    let s = 0;
    for (let k = 0; k < dims; k++) s += vectors[at * dims + k]! * vectors[at * dims + k]!;
    norms[at] = Math.sqrt(s);
    signWords(vectors.subarray(at * dims, (at + 1) * dims), bits, at * w);
    kept.push(ids[i]!);
  }
  const m = kept.length;
  return {
    version,
    ids: kept,
    vectors: m === n ? vectors : vectors.slice(0, m * dims),
    norms: m === n ? norms : norms.slice(0, m),
    bits: m === n ? bits : bits.slice(0, m * w),
    bytes: m * rowBytes,
  };
}

/** The copy's pivots by generation, each generation's bits side by side. */
function generationsOf(copy: Copy): { generation: number; ids: number[]; bits: Int32Array }[] {
  if (copy.generations) return copy.generations;
  const w = words(copy.dims);
  const byGeneration = new Map<number, number[]>();
  for (const [id, p] of copy.pivots) {
    const ids = byGeneration.get(p.generation);
    if (ids) ids.push(id);
    else byGeneration.set(p.generation, [id]);
  }
  copy.generations = [...byGeneration].map(([generation, ids]) => {
    const bits = new Int32Array(ids.length * w);
    ids.forEach((id, i) => bits.set(copy.pivots.get(id)!.bits, i * w));
    return { generation, ids, bits };
  });
  return copy.generations;
}

/**
 * The dot product of `q` and the vector at `a[at]`, in four sums side by side: the rows' cosines
 * are most of a search's time, and this took 98 µs where one sum took 135 (279 rows of 256).
 */
function dot(a: Float32Array, at: number, q: Float32Array): number {
  const n = q.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  for (; k + 3 < n; k += 4) {
    s0 += a[at + k]! * q[k]!;
    s1 += a[at + k + 1]! * q[k + 1]!;
    s2 += a[at + k + 2]! * q[k + 2]!;
    s3 += a[at + k + 3]! * q[k + 3]!;
  }
  for (; k < n; k++) s0 += a[at + k]! * q[k]!;
  return s0 + s1 + s2 + s3;
}

/** The smallest distance d such that at least `n` of `counts` (a count per distance) are within it; the largest if fewer. */
function bound(counts: Uint32Array, n: number): number {
  for (let d = 0, seen = 0; d < counts.length; d++) if ((seen += counts[d]!) >= n) return d;
  return counts.length - 1;
}

/**
 * The copy's answer (VectorMemo.search): the cells of each generation whose pivots are nearest
 * `v` by sign bits, PROBE of them and any as near as the last (the statement's cellSearch takes
 * PROBE of those, whichever it meets first: so every cell it reads is here); of their copied rows,
 * the `byBits` nearest by sign bits (and any as near as the last), ranked by the cosine; the
 * `take` nearest.
 */
function nearest(copy: Copy, v: readonly number[], take: number, byBits: number): MemoHit | null {
  const dims = copy.dims;
  const w = words(dims);
  const q = new Float32Array(v);
  const qBits = new Int32Array(w);
  signWords(q, qBits, 0);
  const counts = new Uint32Array(dims + 1);
  const probed: Cell[] = [];
  const probe: number[] = [];
  const cells: number[] = [];
  const versions: number[] = [];
  let generation = 0;
  for (const g of generationsOf(copy)) {
    generation = Math.max(generation, g.generation);
    const d = new Uint16Array(g.ids.length);
    counts.fill(0);
    for (let i = 0; i < g.ids.length; i++) counts[(d[i] = hamming(g.bits, i * w, qBits, w))]!++;
    const within = bound(counts, PROBE);
    for (let i = 0; i < g.ids.length; i++) {
      if (d[i]! > within) continue;
      probe.push(g.ids[i]!);
      const cell = copy.cells.get(g.ids[i]!);
      if (!cell) continue;
      probed.push(cell);
      cells.push(g.ids[i]!);
      versions.push(cell.version);
    }
  }
  if (!cells.length) return null;
  // the rows of those cells by sign bits
  let total = 0;
  for (const cell of probed) total += cell.ids.length;
  const d = new Uint16Array(total);
  counts.fill(0);
  for (let c = 0, at = 0; c < probed.length; c++) {
    const bits = probed[c]!.bits;
    for (let i = 0, n = probed[c]!.ids.length; i < n; i++, at++) counts[(d[at] = hamming(bits, i * w, qBits, w))]!++;
  }
  const within = bound(counts, byBits);
  let qNorm = 0;
  for (let k = 0; k < dims; k++) qNorm += q[k]! * q[k]!;
  qNorm = Math.sqrt(qNorm);
  // the cosine of those nearest by bits
  const scored: { id: string; cell: number; d: number }[] = [];
  for (let c = 0, at = 0; c < probed.length; c++) {
    const cell = probed[c]!;
    const vectors = cell.vectors;
    for (let i = 0, n = cell.ids.length; i < n; i++, at++) {
      if (d[at]! > within) continue;
      const norm = cell.norms[i]! * qNorm;
      // as the SQL's cosine: a zero vector's distance is null there, and never a neighbour
      if (norm === 0) continue;
      scored.push({ id: cell.ids[i]!, cell: cells[c]!, d: 1 - dot(vectors, i * dims, q) / norm });
    }
  }
  scored.sort((a, b) => a.d - b.d);
  const kept = scored.slice(0, take);
  return { probe, generation, cells, versions, ids: kept.map((r) => r.id), distances: kept.map((r) => r.d), rowCells: kept.map((r) => r.cell) };
}
