import { type SQL, sql } from "drizzle-orm";
import type { Db } from "./client";
import { type ColumnsDecoder, queryRows } from "./rows";

/*
 * Several SELECTs sent as one statement: one round trip where there would be one per SELECT
 * (#16: a query.ask's lists and the place its question names go together). Each part is a
 * MATERIALIZED CTE named by its key, so a later part may read an earlier one's rows by name
 * (partRef) and each is planned as it would be alone; the one row answered holds, in a column
 * per part, that part's rows as a JSON array of arrays (its decoder's columns, in order), which
 * its decoder makes rows of as it would of the part sent alone. A part's rows keep the order its
 * own ORDER BY gave them: a CTE's rows are read back in the order they were stored.
 */

/** One SELECT of a batch, and the decoder of its rows (rowDecoder's, which names the columns selected). */
export interface Part<T> {
  sql: SQL;
  decode: ColumnsDecoder<T>;
}

/** Each part's rows (none for a part left undefined). */
export type PartRows<P> = { [K in keyof P]: P[K] extends Part<infer T> | undefined ? T[] : never };

/** The name a later part of the same batch reads this part's rows by. */
export function partRef(key: string): SQL {
  return sql`${sql.identifier(`part_${key}`)}`;
}

/**
 * Each part's rows, from one statement (none when there are no parts). Parts are defined in the
 * order given: a part may read only those before it.
 */
export async function queryParts<P extends Record<string, Part<unknown>>>(db: Db, parts: P): Promise<PartRows<P>> {
  const keys = Object.keys(parts);
  if (keys.length === 0) return {} as PartRows<P>;
  const [answer] = await queryRows<Record<string, unknown>>(db, partsSql(parts));
  const out: Record<string, unknown[]> = {};
  for (const k of keys) {
    const { decode } = parts[k]!;
    const raw = answer?.[k];
    const arrays: unknown = typeof raw === "string" ? JSON.parse(raw) : raw;
    if (!Array.isArray(arrays)) throw new TypeError(`part ${k}: expected a JSON array, got ${typeof arrays}`);
    out[k] = arrays.map((values: unknown[]) => decode(Object.fromEntries(decode.columns.map((c, i) => [c, values[i]]))));
  }
  return out as PartRows<P>;
}

/** The one statement of queryParts (at least one part). */
export function partsSql(parts: Record<string, Part<unknown>>): SQL {
  const keys = Object.keys(parts);
  const ctes = sql.join(
    keys.map((k) => sql`${partRef(k)} AS MATERIALIZED (${parts[k]!.sql})`),
    sql`, `,
  );
  const columns = sql.join(
    keys.map((k) => {
      const row = sql.join(
        parts[k]!.decode.columns.map((c) => sql`x.${sql.identifier(c)}`),
        sql`, `,
      );
      return sql`(SELECT coalesce(json_agg(json_build_array(${row})), '[]'::json) FROM ${partRef(k)} x) AS ${sql.identifier(k)}`;
    }),
    sql`, `,
  );
  return sql`WITH ${ctes} SELECT ${columns}`;
}
