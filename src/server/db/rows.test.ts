import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { describeEachDriver } from "../../test/db";
import { column, queryRows, rowDecoder } from "./rows";

const row = rowDecoder({
  at: column.timestamp,
  never: column.nullable(column.timestamp),
  doc: column.json<{ a: string; n: number[] }>(),
  list: column.json<string[]>(),
  big: column.int,
  counted: column.int,
  small: column.int,
  ratio: column.number,
  decimal: column.number,
  words: column.texts,
  name: column.text,
  none: column.nullable(column.text),
  yes: column.boolean,
});

describeEachDriver("raw rows through a row decoder", (ctx) => {
  it("come out in one shape on either driver: Dates, objects, numbers", async () => {
    const [r] = await queryRows(
      ctx().database.db,
      sql`SELECT '2026-03-04T05:06:07.123Z'::timestamptz AS at, NULL::timestamptz AS never,
                 '{"a":"b","n":[1,2]}'::jsonb AS doc, '["x","y"]'::json AS list,
                 9007199254740991::bigint AS big, (SELECT count(*) FROM generate_series(1, 3)) AS counted, 7::int AS small,
                 0.5::float8 AS ratio, 1.25::numeric AS decimal, ARRAY['p','q']::text[] AS words,
                 'Alice' AS name, NULL::text AS none, true AS yes, 'left out' AS other`,
      row,
    );
    expect(r).toEqual({
      at: new Date("2026-03-04T05:06:07.123Z"),
      never: null,
      doc: { a: "b", n: [1, 2] },
      list: ["x", "y"],
      big: 9007199254740991,
      counted: 3,
      small: 7,
      ratio: 0.5,
      decimal: 1.25,
      words: ["p", "q"],
      name: "Alice",
      none: null,
      yes: true,
    });
  });

  it("keep microseconds' millisecond and the offset of a timestamp", async () => {
    const [r] = await queryRows(
      ctx().database.db,
      sql`SELECT '2026-03-04 10:06:07.123456+05'::timestamptz AS at`,
      rowDecoder({ at: column.timestamp }),
    );
    expect(r!.at.toISOString()).toBe("2026-03-04T05:06:07.123Z");
  });

  it("name the column whose value is not of its type", async () => {
    const db = ctx().database.db;
    await expect(queryRows(db, sql`SELECT NULL::text AS name`, rowDecoder({ name: column.text }))).rejects.toThrow(/^column name: expected text, got null/);
    await expect(queryRows(db, sql`SELECT 1 AS n`, rowDecoder({ m: column.int }))).rejects.toThrow(/^column m: expected an integer, got undefined/);
    await expect(queryRows(db, sql`SELECT 'soon' AS at`, rowDecoder({ at: column.timestamp }))).rejects.toThrow(/^column at: expected a timestamp/);
  });
});

describe("column decoders", () => {
  it("take what either driver may answer, and refuse anything else", () => {
    expect(column.int("12")).toBe(12);
    expect(column.int(12)).toBe(12);
    expect(() => column.int("1.5")).toThrow(/an integer/);
    expect(() => column.int("")).toThrow(/an integer/);
    expect(() => column.int(String(2 ** 60))).toThrow(/an integer/);
    expect(column.number("0.25")).toBe(0.25);
    expect(() => column.number("x")).toThrow(/a number/);
    expect(column.timestamp(new Date(5))).toEqual(new Date(5));
    expect(column.timestamp("2026-01-01 00:00:00+00")).toEqual(new Date("2026-01-01T00:00:00Z"));
    expect(column.json<{ a: number }>()('{"a":1}')).toEqual({ a: 1 });
    expect(() => column.json()(3)).toThrow(/a json object or array/);
    expect(() => column.texts(["a", 1])).toThrow(/text\[\]/);
    expect(column.nullable(column.text)(null)).toBeNull();
    expect(() => column.boolean("t")).toThrow(/a boolean/);
  });
});
