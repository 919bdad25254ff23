import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
});
