import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { describeEachDriver } from "../../test/db";
import { partRef, queryParts } from "./batch";
import { column, queryRows, rowDecoder } from "./rows";

const typed = rowDecoder({
  n: column.int,
  at: column.timestamp,
  never: column.nullable(column.timestamp),
  doc: column.json<{ a: string; n: number[] }>(),
  words: column.texts,
  name: column.text,
  id: column.text,
  ratio: column.number,
});

const numbered = rowDecoder({ n: column.int });

describeEachDriver("several SELECTs in one statement (queryParts)", (ctx) => {
  const many = sql`SELECT n, '2026-03-04T05:06:07.123Z'::timestamptz + n * interval '1 day' AS at, NULL::timestamptz AS never,
                          jsonb_build_object('a', 'b' || n, 'n', jsonb_build_array(n, n * 2)) AS doc, ARRAY['p', 'q' || n]::text[] AS words,
                          'Ana''s "quoted" \\ name ' || n AS name, md5(n::text)::uuid AS id, n / 8.0::float8 AS ratio, 'left out' AS other
                   FROM generate_series(1, 40) AS g(n) ORDER BY (n * 7) % 40 DESC, n`;

  it("answers each part's rows as the part alone would, in its order, decoded the same", async () => {
    const db = ctx().database.db;
    const alone = await queryRows(db, many, typed);
    const got = await queryParts(db, { many: { sql: many, decode: typed }, none: { sql: sql`SELECT 1 AS n WHERE false`, decode: numbered } });
    expect(alone).toHaveLength(40);
    expect(got.many).toEqual(alone);
    expect(got.none).toEqual([]);
  });

  it("a later part reads an earlier one's rows by name", async () => {
    const db = ctx().database.db;
    const got = await queryParts(db, {
      first: { sql: sql`SELECT n FROM generate_series(1, 5) AS g(n) ORDER BY n DESC`, decode: numbered },
      doubled: { sql: sql`SELECT n * 2 AS n FROM ${partRef("first")} WHERE n % 2 = 1`, decode: numbered },
    });
    expect(got.first.map((r) => r.n)).toEqual([5, 4, 3, 2, 1]);
    expect(got.doubled.map((r) => r.n).sort((a, b) => a - b)).toEqual([2, 6, 10]);
  });

  it("a failing part fails the whole statement", async () => {
    const db = ctx().database.db;
    const failed = await queryParts(db, {
      ok: { sql: sql`SELECT 1 AS n`, decode: numbered },
      bad: { sql: sql`SELECT 1 / (n - n) AS n FROM generate_series(1, 2) AS g(n)`, decode: numbered },
    }).catch((e: unknown) => e);
    // drizzle's error, the driver's as its cause
    expect(failed).toBeInstanceOf(Error);
    expect(String((failed as Error).cause)).toMatch(/division by zero/);
  });

  it("no parts: no statement, no rows", async () => {
    expect(await queryParts(ctx().database.db, {})).toEqual({});
  });
});
