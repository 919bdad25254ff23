import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openTestDatabase } from "../../test/db";
import type { Database } from "./client";
import { analyzeStale, stale, startMaintenance } from "./maintenance";
import { queryRows } from "./rows";

describe("stale", () => {
  it("stale: never analyzed, or grown by more than a tenth and 8 pages", () => {
    expect(stale({ reltuples: -1, relpages: 0, pages: 0 })).toBe(true);
    expect(stale({ reltuples: 100, relpages: 100, pages: 118 })).toBe(false);
    expect(stale({ reltuples: 100, relpages: 100, pages: 119 })).toBe(true);
    expect(stale({ reltuples: 0, relpages: 0, pages: 8 })).toBe(false);
  });
});

// PGlite has no autovacuum; a server's runs a minute apart at best: the app keeps up on both
for (const driver of ["pglite", "postgres"] as const) {
  const unavailable = driver === "postgres" && !inject("pgUrl");
  if (unavailable) console.log("planner statistics [postgres]: skipped, TEST_DATABASE_URL is unset");
  describe.skipIf(unavailable)(`planner statistics [${driver}]`, () => {
    let database: Database;
    beforeAll(async () => {
      database = await openTestDatabase(driver);
      await database.db.execute(sql`CREATE TABLE grows (id int PRIMARY KEY, v text)`);
    });
    afterAll(() => database.close());

    const reltuples = async () =>
      Number((await queryRows<{ n: number }>(database.db, sql`SELECT reltuples AS n FROM pg_class WHERE relname = 'grows'`))[0]!.n);

    it("analyzes a table never analyzed, then only once it has grown", async () => {
      expect(await reltuples()).toBe(-1);
      expect(await analyzeStale(database.db)).toContain("grows");
      expect(await reltuples()).toBe(0);
      expect(await analyzeStale(database.db)).not.toContain("grows");
      await database.db.execute(sql`INSERT INTO grows SELECT g, repeat('x', 200) FROM generate_series(1, 5000) g`);
      expect(await analyzeStale(database.db)).toContain("grows");
      expect(await reltuples()).toBe(5000);
      expect(await analyzeStale(database.db)).toEqual([]);
    });

    it("runs by itself, and stops", async () => {
      await database.db.execute(sql`INSERT INTO grows SELECT g, repeat('y', 200) FROM generate_series(5001, 20000) g`);
      const m = startMaintenance(database, 50);
      try {
        await expect.poll(reltuples, { timeout: 5_000 }).toBe(20000);
      } finally {
        await m.stop();
      }
    });
  });
}
