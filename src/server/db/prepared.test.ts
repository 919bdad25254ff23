import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Database, openDatabase } from "./client";
import { queryRows } from "./rows";
import { createScratchDatabase } from "./scratch";

/*
 * On a Postgres server every statement is a named prepared statement (client.ts, #16), in a
 * transaction too; `?prepare=false` on the URL leaves them unprepared. Seen in the session's own
 * pg_prepared_statements, on a pool of one connection.
 */
const url = inject("pgUrl");

const prepared = async (db: Database["db"]) =>
  (await queryRows<{ statement: string }>(db, sql`SELECT statement FROM pg_prepared_statements`)).map((r) => r.statement);
const probe = (db: Database["db"], n: number) => queryRows<{ n: number }>(db, sql`SELECT ${n}::int + 1 AS n /* probe */`);

if (!url) {
  describe("prepared statements", () => {
    it.skip("needs TEST_DATABASE_URL (a Postgres server)", () => {});
  });
  console.log("prepared statements: not run, TEST_DATABASE_URL is unset");
} else {
  describe("prepared statements [postgres]", () => {
    let drop: () => Promise<void>;
    let scratchUrl: string;
    const open: Database[] = [];
    beforeAll(async () => {
      const scratch = await createScratchDatabase(url, "gb_prep");
      drop = scratch.drop;
      scratchUrl = scratch.url;
    });
    afterAll(async () => {
      for (const d of open) await d.close();
      await drop?.();
    });
    const connect = async (u: string) => {
      const d = await openDatabase({ driver: "postgres", url: u, max: 1 });
      open.push(d);
      return d;
    };

    it("prepares each statement once per connection, in a transaction too", async () => {
      const { db } = await connect(scratchUrl);
      expect((await probe(db, 1))[0]?.n).toBe(2);
      expect((await probe(db, 2))[0]?.n).toBe(3);
      expect((await prepared(db)).filter((s) => s.includes("/* probe */"))).toHaveLength(1);
      await db.transaction(async (tx) => {
        await queryRows(tx as unknown as Database["db"], sql`SELECT ${"x"}::text AS t /* in a transaction */`);
      });
      expect((await prepared(db)).filter((s) => s.includes("/* in a transaction */"))).toHaveLength(1);
    });

    it("plans every statement for its own values, and never compiles one (JIT)", async () => {
      const { db } = await connect(scratchUrl);
      const [r] = await queryRows<{ mode: string; jit: string }>(db, sql`SELECT current_setting('plan_cache_mode') AS mode, current_setting('jit') AS jit`);
      expect(r).toEqual({ mode: "force_custom_plan", jit: "off" });
    });

    it("?prepare=false on the URL leaves them unprepared", async () => {
      const u = new URL(scratchUrl);
      u.searchParams.set("prepare", "false");
      const { db } = await connect(u.toString());
      await probe(db, 1);
      expect(await prepared(db)).toEqual([]);
    });
  });
}
