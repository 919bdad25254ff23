import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { describeEachDriver } from "../../test/db";
import { nearestByCosine, vectorGraph, vectorRow, type VectorRow } from "../../test/vectors";
import { termWeights } from "../query/bm25";
import type { ListQuery } from "../query/lists/candidate";
import { MAX_DISTANCE } from "../query/lists/shared";
import { listsSql, retrieveList } from "../query/retrieve";
import { column, queryRows, rowDecoder } from "./rows";
import { MIN_ROWS, placeInCells } from "./vector-cells";
import { decodeArraySend, VectorMemo } from "./vector-memo";

/*
 * The vector cells copied in memory (vector-memo.ts), on both drivers with the lists asked with
 * pgvector false (as vector-cells.test.ts does): what the lists find with a copy, and that a copy
 * never makes them find what the table no longer holds, or miss what it does.
 */

const DIMS = 256;
const versionRow = rowDecoder({ id: column.int, version: column.int });
const countRow = rowDecoder({ n: column.int });

it("reads a real[]'s binary form as array_send writes it, and refuses another size or a null", () => {
  const b = Buffer.alloc(20 + 8 * 3);
  [1, 0, 700, 3, 1].forEach((x, i) => b.writeInt32BE(x, 4 * i));
  [0.5, -1.25, 3].forEach((x, k) => {
    b.writeInt32BE(4, 20 + 8 * k);
    b.writeFloatBE(x, 24 + 8 * k);
  });
  const out = new Float32Array(4);
  expect(decodeArraySend(b.toString("base64"), 3, out, 1)).toBe(true);
  expect([...out]).toEqual([0, 0.5, -1.25, 3]);
  expect(decodeArraySend(b.toString("base64"), 4, out, 0)).toBe(false);
  b.writeInt32BE(-1, 20 + 8);
  expect(decodeArraySend(b.toString("base64"), 3, out, 0)).toBe(false);
});

describeEachDriver("vector cells copied in memory, without pgvector", (ctx) => {
  let datasetId: string;
  let questions: number[][];
  let all: VectorRow[];

  beforeAll(async () => {
    ({ datasetId, questions, all } = await vectorGraph(ctx().database.db, 4 * MIN_ROWS, DIMS, 16));
    while ((await placeInCells(ctx().database.db)) > 0);
  }, 120_000);

  const query = async (v: number[], memo: VectorMemo | null): Promise<ListQuery> => {
    const db = ctx().database.db;
    return { db, datasetId, question: "x", vector: v, asOf: null, pgvector: false, memo, dimensions: DIMS, period: null, weights: await termWeights(db, datasetId, "x") };
  };
  const factsVector = async (v: number[], memo: VectorMemo | null, asOf: Date | null = null) =>
    retrieveList("facts_vector", { ...(await query(v, memo)), asOf });
  const versions = async () =>
    new Map(
      (await queryRows(ctx().database.db, sql`SELECT id, version FROM gb_vector_pivots WHERE dataset_id = ${datasetId} AND kind = 'fact'`, versionRow)).map((r) => [
        r.id,
        r.version,
      ]),
    );

  it("finds the nearest facts from the copy as well as from the table, at the cosine's distances, reading a few rows of the table", async () => {
    const db = ctx().database.db;
    const memo = new VectorMemo(64 * 1024 * 1024);
    // nothing copied yet: the table answers, and the copy is begun
    expect(memo.search(db, datasetId, "fact", questions[0]!, 120, 240)).toBeNull();
    await memo.refresh(db, datasetId, "fact", DIMS);
    await memo.refresh(db, datasetId, "chunk", DIMS);
    const stats = memo.stats();
    const [pivots] = await queryRows(db, sql`SELECT count(*)::int AS n FROM gb_vector_pivots WHERE dataset_id = ${datasetId} AND kind IN ('fact', 'chunk')`, countRow);
    expect(stats.cells).toBe(pivots!.n);
    const [rows] = await queryRows(db, sql`SELECT (SELECT count(*) FROM gb_facts WHERE dataset_id = ${datasetId}) + (SELECT count(*) FROM gb_chunks WHERE dataset_id = ${datasetId}) AS n`, countRow);
    expect(stats.rows).toBe(rows!.n);
    let [withCopy, without, wanted] = [0, 0, 0];
    for (const v of questions) {
      const exact = nearestByCosine(all, v, 30, MAX_DISTANCE);
      const want = new Set(exact.map((r) => r.id));
      const copied = await factsVector(v, memo);
      const table = await factsVector(v, null);
      wanted += want.size;
      withCopy += copied.filter((c) => want.has(c.id)).length;
      without += table.filter((c) => want.has(c.id)).length;
      expect(new Set(copied.map((c) => c.id)).size).toBe(copied.length);
    }
    console.log(`facts_vector with the cells copied in memory: recall of the exact 30 nearest ${(withCopy / wanted).toFixed(3)}, from the table ${(without / wanted).toFixed(3)}`);
    // the copy ranks twice as many of the rows the bits choose by the cosine as the table did
    expect(withCopy).toBeGreaterThanOrEqual(without);
    expect(withCopy / wanted).toBeGreaterThanOrEqual(0.8);
    // the table reads the rows the copy names, by key: not the question's cells
    const plan = async (memoOf: VectorMemo | null) => {
      const [row] = await queryRows<Record<string, unknown>>(db, sql`EXPLAIN (ANALYZE, FORMAT JSON) ${listsSql(await query(questions[3]!, memoOf))!}`);
      const raw = Object.values(row!)[0];
      type Node = { "Relation Name"?: string; "Actual Rows": number; "Actual Loops": number; Plans?: Node[] };
      const read: Record<string, number> = {};
      const walk = (n: Node) => {
        const table = n["Relation Name"];
        if (table) read[table] = (read[table] ?? 0) + n["Actual Rows"] * n["Actual Loops"];
        n.Plans?.forEach(walk);
      };
      walk(((typeof raw === "string" ? JSON.parse(raw) : raw) as [{ Plan: Node }])[0].Plan);
      return read;
    };
    const [copiedPlan, tablePlan] = [await plan(memo), await plan(null)];
    expect(copiedPlan.gb_facts).toBeGreaterThan(0);
    expect(copiedPlan.gb_facts!).toBeLessThan(tablePlan.gb_facts! / 3);
    expect(copiedPlan.gb_chunks!).toBeLessThan(tablePlan.gb_chunks! / 3);
    // the distances are the cosine's, as the statement computes them without the copy
    const v = questions[5]!;
    const found = await factsVector(v, memo);
    const exact = new Map(nearestByCosine(all, v, all.length, 2).map((r) => [r.id, r.d]));
    expect(found.length).toBeGreaterThan(0);
    for (const c of found) expect(exact.has(c.id)).toBe(true);
    const d = found.map((c) => exact.get(c.id)!);
    expect(d).toEqual([...d].sort((a, b) => a - b));
    // and the same asked about a moment since (the facts' validity reads their texts)
    const asOf = new Date(Date.now() + 86_400_000);
    const then = await factsVector(v, memo, asOf);
    // every seeded fact holds then too: the same facts
    expect(then.map((c) => c.id)).toEqual(found.map((c) => c.id));
  }, 120_000);

  it("a row placed in a cell since the cell was copied is found, from the table; placing raises that cell's version and only its; a row both copied and in no cell is found once", async () => {
    const db = ctx().database.db;
    const memo = new VectorMemo(64 * 1024 * 1024);
    const [f] = await queryRows(db, sql`SELECT id, to_json(embedding) AS embedding FROM gb_facts WHERE dataset_id = ${datasetId} ORDER BY id DESC LIMIT 1`, vectorRow);
    const cellOf = async () =>
      (await queryRows(db, sql`SELECT embedding_cell AS n FROM gb_facts WHERE dataset_id = ${datasetId} AND id = ${f!.id}`, countRow))[0]!.n;
    const found = async () => (await factsVector(f!.embedding, memo)).map((c) => c.id).filter((id) => id === f!.id).length;
    // as if stored since the last pass (in no cell), and the cells copied without it
    await db.execute(sql`UPDATE gb_facts SET embedding_cell = NULL WHERE dataset_id = ${datasetId} AND id = ${f!.id}`);
    await memo.refresh(db, datasetId, "fact", DIMS);
    expect(memo.stats().rows).toBe(4 * MIN_ROWS - 1);
    expect(await found()).toBe(1);
    const before = await versions();
    expect(await placeInCells(db)).toBe(1);
    const after = await versions();
    const cell = await cellOf();
    expect(after.get(cell)).toBe(before.get(cell)! + 1);
    for (const [id, version] of after) if (id !== cell) expect(version, `cell ${id}`).toBe(before.get(id));
    // the copy of its cell is older than the cell: the statement reads that cell from the table
    expect(memo.stats().rows).toBe(4 * MIN_ROWS - 1);
    expect(await found()).toBe(1);
    // brought up to date, the copy has it
    await memo.refresh(db, datasetId, "fact", DIMS);
    expect(memo.stats().rows).toBe(4 * MIN_ROWS);
    expect(await found()).toBe(1);
    // taken out of its cell by hand (no version raised): in the copy's cell and in no cell, found once
    await db.execute(sql`UPDATE gb_facts SET embedding_cell = NULL WHERE dataset_id = ${datasetId} AND id = ${f!.id}`);
    try {
      expect(await found()).toBe(1);
    } finally {
      await db.execute(sql`UPDATE gb_facts SET embedding_cell = ${cell} WHERE dataset_id = ${datasetId} AND id = ${f!.id}`);
    }
  });

  it("a generation of pivots newer than the copy's: the statement ranks the pivots itself, and finds a row moved into one of its cells", async () => {
    const db = ctx().database.db;
    const memo = new VectorMemo(64 * 1024 * 1024);
    await memo.refresh(db, datasetId, "fact", DIMS);
    const [f] = await queryRows(db, sql`SELECT id, to_json(embedding) AS embedding FROM gb_facts WHERE dataset_id = ${datasetId} ORDER BY id LIMIT 1 OFFSET 11`, vectorRow);
    const cellRow = rowDecoder({ cell: column.int });
    const [was] = await queryRows(db, sql`SELECT embedding_cell AS cell FROM gb_facts WHERE dataset_id = ${datasetId} AND id = ${f!.id}`, cellRow);
    // a newer generation with one pivot, the fact's own bits, and the fact moved into its cell as placeInCells would (its old cell's version raised)
    const [cell] = await queryRows(
      db,
      sql`INSERT INTO gb_vector_pivots (dataset_id, kind, generation, rows, bits)
          SELECT dataset_id, 'fact', 99, 1, embedding_bits FROM gb_facts WHERE dataset_id = ${datasetId} AND id = ${f!.id} RETURNING id AS cell`,
      cellRow,
    );
    await db.execute(sql`UPDATE gb_facts SET embedding_cell = ${cell!.cell} WHERE dataset_id = ${datasetId} AND id = ${f!.id}`);
    await db.execute(sql`UPDATE gb_vector_pivots SET version = version + 1 WHERE dataset_id = ${datasetId} AND id IN (${was!.cell}, ${cell!.cell})`);
    try {
      expect((await factsVector(f!.embedding, memo)).map((c) => c.id)).toContain(f!.id);
      // brought up to date, the copy knows the generation and gives it
      await memo.refresh(db, datasetId, "fact", DIMS);
      expect(memo.search(db, datasetId, "fact", f!.embedding, 120, 240)!.generation).toBe(99);
      expect((await factsVector(f!.embedding, memo)).map((c) => c.id)).toContain(f!.id);
    } finally {
      await db.execute(sql`UPDATE gb_facts SET embedding_cell = ${was!.cell} WHERE dataset_id = ${datasetId} AND id = ${f!.id}`);
      await db.execute(sql`DELETE FROM gb_vector_pivots WHERE dataset_id = ${datasetId} AND id = ${cell!.cell}`);
    }
  });

  it("never gives a row the table no longer holds as the list asks for it: an ended fact is not found", async () => {
    const db = ctx().database.db;
    const memo = new VectorMemo(64 * 1024 * 1024);
    await memo.refresh(db, datasetId, "fact", DIMS);
    const [f] = await queryRows(db, sql`SELECT id, to_json(embedding) AS embedding FROM gb_facts WHERE dataset_id = ${datasetId} ORDER BY id LIMIT 1 OFFSET 7`, vectorRow);
    expect((await factsVector(f!.embedding, memo)).map((c) => c.id)).toContain(f!.id);
    await db.execute(sql`UPDATE gb_facts SET expired_at = now() WHERE dataset_id = ${datasetId} AND id = ${f!.id}`);
    try {
      expect((await factsVector(f!.embedding, memo)).map((c) => c.id)).not.toContain(f!.id);
      expect(memo.stats().rows).toBeGreaterThan(0);
    } finally {
      await db.execute(sql`UPDATE gb_facts SET expired_at = NULL WHERE dataset_id = ${datasetId} AND id = ${f!.id}`);
    }
  });

  it("keeps within its bound: a copy that does not fit is not made (the table answers), and the least recently used copy goes first", async () => {
    const db = ctx().database.db;
    const tiny = new VectorMemo(1024);
    await tiny.refresh(db, datasetId, "fact", DIMS);
    expect(tiny.stats().cells).toBe(0);
    expect(tiny.search(db, datasetId, "fact", questions[0]!, 120, 240)).toBeNull();
    const v = questions[2]!;
    expect((await factsVector(v, tiny)).map((c) => c.id)).toEqual((await factsVector(v, null)).map((c) => c.id));
    // room for the facts (4,000 rows) or the chunks, not both
    const one = new VectorMemo(6 * 1024 * 1024);
    await one.refresh(db, datasetId, "fact", DIMS);
    const facts = one.stats();
    expect(facts.rows).toBe(4 * MIN_ROWS);
    await one.refresh(db, datasetId, "chunk", DIMS);
    const chunks = one.stats();
    expect(chunks.copies).toBe(1);
    expect(chunks.rows).toBeGreaterThan(0);
    expect(chunks.rows).toBeLessThan(facts.rows);
    expect(chunks.bytes).toBeLessThanOrEqual(6 * 1024 * 1024);
  });

  it("a refresh that fails leaves the copy as it was and says so; a closed memo answers nothing", async () => {
    const db = ctx().database.db;
    const errors: unknown[] = [];
    const memo = new VectorMemo(64 * 1024 * 1024, (e) => errors.push(e));
    await memo.refresh(db, datasetId, "fact", DIMS);
    const cells = memo.stats().cells;
    const broken = { execute: () => Promise.reject(new Error("connection lost")) } as unknown as typeof db;
    await memo.refresh(broken, datasetId, "fact", DIMS);
    expect(errors).toHaveLength(1);
    expect(memo.stats()).toMatchObject({ cells, failures: 1 });
    expect(memo.search(db, datasetId, "fact", questions[0]!, 120, 240)).not.toBeNull();
    await memo.close();
    expect(memo.search(db, datasetId, "fact", questions[0]!, 120, 240)).toBeNull();
    // closing while a copy is being made: the copy stops at the next batch of cells
    const copying = new VectorMemo(64 * 1024 * 1024);
    const began = copying.refresh(db, datasetId, "fact", DIMS);
    await copying.close();
    await began;
    expect(copying.stats().cells).toBeLessThan(cells);
  });
});
