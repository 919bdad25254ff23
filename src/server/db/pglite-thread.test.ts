import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKGROUND_EVERY, inBackground } from "./lanes";
import { PgliteThread } from "./pglite-thread";
import { turnsDuring } from "../../test/event-loop";

/*
 * PGlite on its own thread: a statement that computes for a second does not hold this thread's
 * event loop; a transaction has the database to itself, as in PGlite; errors keep their fields.
 */

describe("PGlite thread", () => {
  let pg: PgliteThread;
  beforeAll(async () => {
    pg = await PgliteThread.create();
    await pg.exec("CREATE TABLE t (id int PRIMARY KEY, v text)");
  });
  afterAll(() => pg.close());

  it("a long statement runs while this thread's loop goes on turning", async () => {
    const { value, turns } = await turnsDuring(() => pg.query<{ n: number }>("SELECT count(*)::int AS n FROM generate_series(1, 3000000)"));
    expect(value.rows).toEqual([{ n: 3000000 }]);
    expect(turns).toBeGreaterThan(20);
  });

  it("a transaction has the database to itself: a query from elsewhere waits for its end", async () => {
    const order: string[] = [];
    let inside!: () => void;
    const entered = new Promise<void>((r) => (inside = r));
    const tx = pg.transaction(async (t) => {
      await t.query("INSERT INTO t VALUES (1, 'in the transaction')");
      inside();
      await new Promise((r) => setTimeout(r, 100));
      order.push("transaction ends");
    });
    await entered;
    const outside = pg.query<{ n: number }>("SELECT count(*)::int AS n FROM t").then((r) => {
      order.push("query");
      return r.rows[0]!.n;
    });
    await tx;
    expect(await outside).toBe(1);
    expect(order).toEqual(["transaction ends", "query"]);
  });

  it("a request's statement goes before the background's waiting ones, and the background still gets every fourth turn", async () => {
    const order: string[] = [];
    let inside!: () => void;
    const entered = new Promise<void>((r) => (inside = r));
    // hold the database, then queue six background statements and six of requests behind it
    const hold = pg.transaction(async () => {
      inside();
      await new Promise((r) => setTimeout(r, 50));
    });
    await entered;
    const q = (name: string) => pg.query(`SELECT '${name}' AS name`).then(() => void order.push(name));
    const queued = [
      ...Array.from({ length: 6 }, (_, i) => inBackground(() => q(`b${i}`))),
      ...Array.from({ length: 6 }, (_, i) => q(`f${i}`)),
    ];
    await hold;
    await Promise.all(queued);
    expect(order).toEqual(["f0", "f1", "f2", "b0", "f3", "f4", "f5", "b1", "b2", "b3", "b4", "b5"]);
    expect(BACKGROUND_EVERY).toBe(4);
  });

  it("a transaction that throws is rolled back, and the database's error keeps its code", async () => {
    const failed = await pg
      .transaction(async (t) => {
        await t.query("INSERT INTO t VALUES (2, 'kept?')");
        await t.query("INSERT INTO t VALUES (1, 'twice')");
      })
      .catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: "23505", message: expect.stringMatching(/duplicate key/) });
    expect((await pg.query("SELECT id FROM t ORDER BY id")).rows).toEqual([{ id: 1 }]);
  });

  it("array rows, and the types named in parsers kept as their text", async () => {
    const r = await pg.query("SELECT now() AS at, 1 AS one", [], { rowMode: "array", parsers: { 1184: () => null } });
    const [at, one] = r.rows[0] as [unknown, unknown];
    expect(typeof at).toBe("string");
    expect(one).toBe(1);
  });

  it("dumps its data dir, from which another thread starts", async () => {
    const other = await PgliteThread.create({ loadDataDir: await pg.dumpDataDir() });
    try {
      expect((await other.query("SELECT v FROM t")).rows).toEqual([{ v: "in the transaction" }]);
    } finally {
      await other.close();
    }
  });

  it("once closed, every call says so", async () => {
    const other = await PgliteThread.create();
    await other.close();
    expect(other.closed).toBe(true);
    await expect(other.query("SELECT 1")).rejects.toThrow(/PGlite is closed/);
  });

  describe("a statement run again is prepared (pglite-prepared.ts)", () => {
    const typed = `SELECT $1::int8 AS big, $2::numeric AS num, $3::timestamptz AS at, $4::jsonb AS doc, $5::text[] AS tags,
      $6::uuid AS id, $7::bool AS yes, $8::text AS nothing, $9::real[] AS vec, $10::int AS n`;
    const params = ["9007199254740993", "1.25", "2024-02-03T04:05:06.789Z", JSON.stringify({ a: [1, "x"] }), "{a,\"b c\"}", "0b6e2a4c-52f6-4a0e-9d5b-6a3e7c1f2d10", true, null, "{0.5,1}", 7];

    it("answers as the first, unprepared, call did: rows, fields, types kept as text", async () => {
      for (const rowMode of ["object", "array"] as const) {
        const run = () => pg.query(typed, params, { rowMode, parsers: { 1184: () => null } });
        const first = await run();
        expect(await run()).toEqual(first);
        expect(await run()).toEqual(first);
      }
      const once = (await pg.query(typed, params)).rows[0] as Record<string, unknown>;
      expect(once).toMatchObject({ num: "1.25", doc: { a: [1, "x"] }, tags: ["a", "b c"], yes: true, nothing: null, vec: [0.5, 1], n: 7 });
      expect((await pg.query(typed, params)).rows[0]).toEqual(once);
      const listed = await pg.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1", [typed]);
      expect(listed.rows).toEqual([{ n: 1 }]);
    });

    it("writes report their rows, errors keep their code, and the database goes on", async () => {
      const insert = "INSERT INTO t VALUES ($1, $2) ON CONFLICT DO NOTHING";
      await pg.query(insert, [10, "a"]);
      expect((await pg.query(insert, [11, "b"])).affectedRows).toBe(1);
      expect((await pg.query(insert, [11, "b"])).affectedRows).toBe(0);
      const strict = "INSERT INTO t VALUES ($1, $2)";
      await pg.query(strict, [12, "c"]);
      await expect(pg.query(strict, [12, "c"])).rejects.toMatchObject({ code: "23505" });
      await expect(pg.query("SELECT $1::int AS n", ["not a number"])).rejects.toMatchObject({ code: "22P02" });
      await expect(pg.query("SELECT $1::int AS n", ["still not"])).rejects.toMatchObject({ code: "22P02" });
      expect((await pg.query("SELECT $1::int AS n", [3])).rows).toEqual([{ n: 3 }]);
    });

    it("inside a transaction, rolled back, and after: the statement stays and its writes go", async () => {
      const count = "SELECT count(*)::int AS n FROM t WHERE v = $1";
      await pg.query(count, ["tx"]);
      await pg
        .transaction(async (tx) => {
          await tx.query("INSERT INTO t VALUES ($1, $2)", [20, "tx"]);
          expect((await tx.query(count, ["tx"])).rows).toEqual([{ n: 1 }]);
          await tx.rollback();
        })
        .catch(() => {});
      expect((await pg.query(count, ["tx"])).rows).toEqual([{ n: 0 }]);
      // an aborted transaction refuses the statement; the rollback ends it, and the statement works again
      const failed = await pg
        .transaction(async (tx) => {
          await tx.query("SELECT 1/0").catch(() => {});
          await tx.query(count, ["tx"]);
        })
        .catch((e: unknown) => e);
      expect(failed).toMatchObject({ code: "25P02" });
      expect((await pg.query(count, ["tx"])).rows).toEqual([{ n: 0 }]);
    });

    it("a statement whose columns a schema change altered runs again, unprepared", async () => {
      await pg.exec("CREATE TABLE s (a int)");
      await pg.query("INSERT INTO s VALUES ($1)", [1]);
      const all = "SELECT * FROM s WHERE a = $1";
      await pg.query(all, [1]);
      expect((await pg.query(all, [1])).rows).toEqual([{ a: 1 }]);
      await pg.exec("ALTER TABLE s ADD COLUMN b text DEFAULT 'x'");
      expect((await pg.query(all, [1])).rows).toEqual([{ a: 1, b: "x" }]);
      expect((await pg.query(all, [1])).rows).toEqual([{ a: 1, b: "x" }]);
    });

    it("keeps at most its bound of statements: older ones are closed, and still answer", async () => {
      for (let i = 0; i < 230; i++) {
        const q = `SELECT $1::int + ${i} AS n`;
        await pg.query(q, [1]);
        expect((await pg.query(q, [1])).rows).toEqual([{ n: 1 + i }]);
      }
      const { rows } = await pg.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements");
      expect(rows[0]!.n).toBeLessThanOrEqual(200);
      expect((await pg.query("SELECT $1::int + 0 AS n", [5])).rows).toEqual([{ n: 5 }]);
    });
  });
});

