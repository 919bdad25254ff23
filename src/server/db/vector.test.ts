import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { describeEachDriver } from "../../test/db";
import { queryRows } from "./rows";
import { cosineDistance } from "./vector";

const vectors: Record<string, number[]> = {
  same: [1, 0, 0],
  close: [0.9, 0.1, 0],
  orthogonal: [0, 1, 0],
  opposite: [-1, 0, 0],
};

describeEachDriver("vector search", (ctx, driver) => {
  async function nearest(pgvector: boolean) {
    const { db } = ctx().database;
    // a table of its own, not TEMP: the pool may answer each statement on another connection
    const table = sql.raw(`gb_test_vec_${crypto.randomUUID().replaceAll("-", "")}`);
    await db.execute(sql`CREATE TABLE ${table} (name text, embedding real[])`);
    try {
      for (const [name, v] of Object.entries(vectors)) {
        await db.execute(sql`INSERT INTO ${table} VALUES (${name}, ${`{${v.join(",")}}`}::real[])`);
      }
      const distance = cosineDistance(sql`embedding`, [1, 0, 0], { pgvector, dimensions: 3 });
      return await queryRows<{ name: string; d: number }>(db, sql`SELECT name, ${distance} AS d FROM ${table} ORDER BY d, name`);
    } finally {
      await db.execute(sql`DROP TABLE ${table}`);
    }
  }

  it("ranks by cosine distance on the fallback path", async () => {
    const rows = await nearest(false);
    expect(rows.map((r) => r.name)).toEqual(["same", "close", "orthogonal", "opposite"]);
    expect(rows.map((r) => Number(r.d.toFixed(4)))).toEqual([0, 0.0061, 1, 2]);
  });

  // PGlite ships pgvector; the server variant of this file checks the fallback alone.
  if (driver === "pglite")
    it("gives the same distances through pgvector where it exists", async () => {
    expect(ctx().database.vector).toBe(true);
    const a = await nearest(true);
    const b = await nearest(false);
    expect(a.map((r) => r.name)).toEqual(b.map((r) => r.name));
    a.forEach((r, i) => expect(r.d).toBeCloseTo(b[i]!.d, 5));
  });

  it("knows whether the server has pgvector", async () => {
    const { db, vector } = ctx().database;
    const available = await queryRows(db, sql`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    expect(vector).toBe(available.length > 0);
    // PGlite ships it (its bundle is loaded by the client)
    if (driver === "pglite") expect(vector).toBe(true);
  });

  it("computes on the fallback path the value gb_cosine_distance (migration 0000) gives", async () => {
    const { db } = ctx().database;
    const table = sql.raw(`gb_test_vec_${crypto.randomUUID().replaceAll("-", "")}`);
    // deterministic vectors of mixed signs and sizes; a row without an embedding
    const v = (k: number) => Array.from({ length: 16 }, (_, i) => Math.sin(k * 7.3 + i * 1.7) * (1 + (i % 3)));
    await db.execute(sql`CREATE TABLE ${table} (k int, embedding real[])`);
    try {
      for (let k = 0; k < 12; k++) await db.execute(sql`INSERT INTO ${table} VALUES (${k}, ${`{${v(k).join(",")}}`}::real[])`);
      await db.execute(sql`INSERT INTO ${table} VALUES (99, NULL)`);
      const q = v(100);
      const rows = await queryRows<{ k: number; inline: number | null; fn: number | null }>(
        db,
        sql`SELECT k, ${cosineDistance(sql`embedding`, q, { pgvector: false, dimensions: 16 })} AS inline,
                   gb_cosine_distance(embedding, ${`{${q.join(",")}}`}::real[]) AS fn FROM ${table} ORDER BY k`,
      );
      expect(rows).toHaveLength(13);
      for (const r of rows) {
        if (r.k === 99) expect([r.inline, r.fn]).toEqual([null, null]);
        else expect(r.inline!).toBeCloseTo(r.fn!, 12);
      }
      // not all alike: the vectors are of several directions
      expect(new Set(rows.map((r) => r.fn?.toFixed(3))).size).toBeGreaterThan(6);
    } finally {
      await db.execute(sql`DROP TABLE ${table}`);
    }
  });

  it("rejects a query vector of the wrong size", () => {
    expect(() => cosineDistance(sql`x`, [1, 2], { pgvector: false, dimensions: 3 })).toThrow(/3/);
  });
});
