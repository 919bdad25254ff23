import type { SQL } from "drizzle-orm";
import type { Db } from "./client";
import { flatSql } from "./flat-sql";

/*
 * Rows of raw SQL, one shape whichever driver answered. postgres.js answers an array, PGlite an
 * object with `rows`; and the values differ: drizzle makes both answer timestamps as text
 * ("2026-01-01 10:00:00.123+00"), PGlite answers a bigint (count(*)) as a number where postgres.js
 * answers text, and both answer numeric as text. A row decoder names each column's type once, so
 * the row's TypeScript type is what the code gets (a Date, a number), never `Date | string`.
 */

/** One column: what either driver answers for its type, as one JavaScript type; throws on anything else. */
export type Column<T> = (value: unknown) => T;

const fail = (expected: string, v: unknown): never => {
  throw new TypeError(`expected ${expected}, got ${v === null ? "null" : typeof v} ${JSON.stringify(v)?.slice(0, 40) ?? ""}`);
};

const toNumber = (expected: string, v: unknown): number => {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isNaN(n) ? fail(expected, v) : n;
};

export const column = {
  /** text, varchar, uuid */
  text: ((v) => (typeof v === "string" ? v : fail("text", v))) as Column<string>,
  /** int2/int4, and int8 or count(*) within 2^53 (postgres.js answers those as text) */
  int: ((v) => {
    const n = toNumber("an integer", v);
    return Number.isSafeInteger(n) ? n : fail("an integer", v);
  }) as Column<number>,
  /** real, float8, and numeric (text on both drivers) */
  number: ((v) => toNumber("a number", v)) as Column<number>,
  boolean: ((v) => (typeof v === "boolean" ? v : fail("a boolean", v))) as Column<boolean>,
  /** timestamptz: text on both drivers (drizzle turns their parsers off), a Date if a driver parses it */
  timestamp: ((v) => {
    const d = v instanceof Date ? v : typeof v === "string" ? new Date(v) : null;
    return d && !Number.isNaN(d.getTime()) ? d : fail("a timestamp", v);
  }) as Column<Date>,
  /** text[] (both drivers parse a one-dimensional array) */
  texts: ((v) => (Array.isArray(v) && v.every((x) => typeof x === "string") ? (v as string[]) : fail("text[]", v))) as Column<string[]>,
  /**
   * A json or jsonb column holding an object or an array, typed by the schema that wrote it (as
   * drizzle's `$type` does; it is not checked). Both drivers parse it; text is parsed here.
   */
  json: <T extends object>(): Column<T> => (v) => {
    const parsed: unknown = typeof v === "string" ? JSON.parse(v) : v;
    return (parsed !== null && typeof parsed === "object" ? parsed : fail("a json object or array", v)) as T;
  },
  nullable:
    <T>(c: Column<T>): Column<T | null> =>
    (v) =>
      v === null || v === undefined ? null : c(v),
};

export type Row<S extends Record<string, Column<unknown>>> = { [K in keyof S]: ReturnType<S[K]> };
export type RowDecoder<T> = (raw: Record<string, unknown>) => T;
/** A row decoder that names its columns (rowDecoder's): what a batched statement selects of a part (db/batch.ts). */
export type ColumnsDecoder<T> = RowDecoder<T> & { readonly columns: readonly string[] };

/**
 * A decoder of rows with these columns (the statement's names, `AS` aliases included). Other
 * columns of the row are left out; a missing one is an error, as a typo in the SQL would be.
 */
export function rowDecoder<S extends Record<string, Column<unknown>>>(shape: S): ColumnsDecoder<Row<S>> {
  const columns = Object.entries(shape);
  const decode: RowDecoder<Row<S>> = (raw) => {
    const out: Record<string, unknown> = {};
    for (const [name, decode] of columns) {
      try {
        out[name] = decode(raw[name]);
      } catch (e) {
        throw new TypeError(`column ${name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return out as Row<S>;
  };
  return Object.assign(decode, { columns: Object.keys(shape) });
}

async function execute(db: Db, query: SQL): Promise<Record<string, unknown>[]> {
  const result: unknown = await db.execute(flatSql(query));
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, unknown>[];
}

/**
 * Rows of a raw SQL statement on either driver. Use the query builder where it can express the
 * query; this is for the rest. With a decoder (rowDecoder), the rows are what it makes of them.
 * Without one the row type is the caller's word: only for columns both drivers answer alike
 * (text, uuid, int4, boolean, text[]); a timestamp, json, int8 or numeric column needs a decoder.
 */
export async function queryRows<T>(db: Db, query: SQL, decode?: RowDecoder<T>): Promise<T[]> {
  const rows = await execute(db, query);
  return decode ? rows.map(decode) : (rows as T[]);
}
