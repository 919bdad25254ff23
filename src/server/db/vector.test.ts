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

  it("rejects a query vector of the wrong size", () => {
    expect(() => cosineDistance(sql`x`, [1, 2], { pgvector: false, dimensions: 3 })).toThrow(/3/);
  });
});
