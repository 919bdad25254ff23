import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openTestDatabase } from "../../test/db";
import type { Database } from "./client";
import { LOCAL_CALLER } from "../auth/caller";
import { createDataset } from "../datasets/datasets";
import { analyzeBehind, analyzeStale, analyzeTable, BEHIND_MIN_ROWS, behindMemory, stale, startMaintenance } from "./maintenance";
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

    it("passes over a table dropped since the list was read, and fails on any other error", async () => {
      expect(await analyzeTable(database.db, "grows")).toBe(true);
      expect(await analyzeTable(database.db, "gb_test_gone_meanwhile")).toBe(false);
      await expect(analyzeTable(database.db, "x".repeat(70) + "\u0000")).rejects.toThrow();
    });

    it("analyzes a table in which a dataset being remembered into holds far more than the planner thinks, once per doubling", async () => {
      const db = database.db;
      const big = await createDataset({ db, caller: LOCAL_CALLER, input: { name: "big" } });
      const fresh = await createDataset({ db, caller: LOCAL_CALLER, input: { name: "fresh" } });
      const terms = (datasetId: string, from: number, to: number) =>
        db.execute(sql`INSERT INTO gb_term_stats (dataset_id, lexeme, df, bdf) SELECT ${datasetId}, 'w' || g, 1, 0 FROM generate_series(${from}::int, ${to}::int) g`);
      /** the planner's estimate of a dataset's term rows */
      const planned = async (datasetId: string) => {
        const [row] = await queryRows<Record<string, unknown>>(db, sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM gb_term_stats WHERE dataset_id = ${sql.raw(`'${datasetId}'::uuid`)}`);
        const raw = Object.values(row!)[0];
        return ((typeof raw === "string" ? JSON.parse(raw) : raw) as [{ Plan: { "Plan Rows": number } }])[0].Plan["Plan Rows"];
      };
      await terms(big.id, 1, 20_000);
      await db.execute(sql`ANALYZE gb_term_stats`);
      // the fresh dataset grows by 5%: the table is not stale, yet the planner sees none of it
      await terms(fresh.id, 1, 1_000);
      expect(await analyzeStale(db)).not.toContain("gb_term_stats");
      expect(await planned(fresh.id)).toBeLessThan(BEHIND_MIN_ROWS);

      const memory = behindMemory();
      // nothing is being remembered into the fresh dataset: it is not weighed
      expect(await analyzeBehind(db, memory)).toEqual([]);
      const run = (status: string) =>
        db.execute(sql`INSERT INTO gb_remember_runs (id, dataset_id, params, status, created_at) VALUES (gen_random_uuid(), ${fresh.id}, '{}', ${status}, now())`);
      await run("queued");
      expect(await analyzeBehind(db, memory)).toContain("gb_term_stats");
      expect(await planned(fresh.id)).toBeGreaterThan(500);
      // current now: the next pass analyzes nothing for it
      expect(await analyzeBehind(db, memory)).not.toContain("gb_term_stats");
      // its runs ended: weighed once more (the pass after the last run), then no longer
      await db.execute(sql`UPDATE gb_remember_runs SET status = 'succeeded' WHERE dataset_id = ${fresh.id}`);
      await terms(fresh.id, 1_001, 3_000);
      expect(await analyzeBehind(db, memory)).toContain("gb_term_stats");
      await terms(fresh.id, 3_001, 9_000);
      expect(await analyzeBehind(db, memory)).toEqual([]);
      // a run of this process that began and ended between two passes: weighed all the same
      memory.wrote.add(fresh.id);
      expect(await analyzeBehind(db, memory)).toContain("gb_term_stats");
      expect(await planned(fresh.id)).toBeGreaterThan(4_500);
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
