import type { SQL } from "drizzle-orm";
import type { Db } from "./client";

/**
 * Rows of a raw SQL statement on either driver: postgres.js answers an array, PGlite an object
 * with `rows`. Use the query builder where it can express the query; this is for the rest.
 */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as T[];
}
