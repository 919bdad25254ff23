import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { flatSql } from "./flat-sql";
import { datasets } from "./schema";
import { eq } from "drizzle-orm";

/* flatSql: the statement drizzle writes of the flattened pieces is the one it writes of the nested. */
const dialect = new PgDialect();
const same = (q: SQL) => {
  const flat = flatSql(q);
  expect(dialect.sqlToQuery(flat)).toEqual(dialect.sqlToQuery(q));
  return flat;
};

describe("flatSql", () => {
  it("writes the same text and parameters as the nested statement, in fewer chunks", () => {
    const inner = sql`SELECT ${1}::int AS a, ${"x"} AS b, ${null} AS c, ${true} AS d`;
    const q = sql`WITH ${sql.identifier("part_one")} AS MATERIALIZED (${inner}) SELECT * FROM ${sql.identifier("part_one")} WHERE a IN ${[1, 2, sql`${3} + 1`]} ${undefined}
      AND ${sql.join([sql`b = ${"y"}`, sql.raw("c IS NULL"), sql`d = ${false}`], sql` OR `)} ${sql.empty()} LIMIT ${10}`;
    const flat = same(q);
    // values and identifiers stay chunks of their own; the text between them runs together
    expect(flat.queryChunks.length).toBeLessThan(25);
    expect(dialect.sqlToQuery(flat).params).toEqual([1, "x", null, true, 1, 2, 3, "y", false, 10]);
  });

  it("keeps what drizzle maps itself: columns, tables, typed params, dates, inlined values", () => {
    same(sql`SELECT ${datasets.id} FROM ${datasets} WHERE ${eq(datasets.name, "n")} AND created_at < ${new Date(0).toISOString()}`);
    same(sql`SELECT ${sql.param([1, 2])} AS arr, ${{ a: 1 }}::jsonb AS o`);
    const inlined = sql`SELECT ${"it's"} AS s`.inlineParams();
    expect(flatSql(inlined)).toBe(inlined);
    same(sql`SELECT 1 WHERE ${sql`x = ${"v"}`.inlineParams()} AND y = ${2}`);
  });

  it("an empty statement stays empty", () => {
    same(sql.empty());
    same(sql``);
  });
});
