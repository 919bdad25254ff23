import path from "node:path";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { type Database, detectVector } from "./client";

/** drizzle/ at the project root; the app and scripts run from there. */
export const migrationsFolder = path.resolve(process.cwd(), "drizzle");

/**
 * Applies every migration in drizzle/ not yet applied. Safe to call at every start: the
 * migrator keeps its journal in the database. Returns the database with `vector` re-checked,
 * since the first migration may have created the extension.
 */
export async function migrate(database: Database, folder = migrationsFolder): Promise<Database> {
  if (database.driver === "pglite") {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: folder });
  } else {
    await migratePostgres(database.db as unknown as PostgresJsDatabase, { migrationsFolder: folder });
  }
  return { ...database, vector: await detectVector(database.db) };
}
