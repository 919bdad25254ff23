import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { type Database, detectVector } from "./client";
import { reasonOf, StartupError } from "./startup-error";

/** drizzle/ at the project root; the app and scripts run from there. */
export const migrationsFolder = path.resolve(process.cwd(), "drizzle");

/**
 * The migration whose SQL holds the statement that failed (drizzle's error carries the
 * statement, not the file), or undefined when none does (the journal's own statements).
 */
function failedMigration(folder: string, e: unknown): string | undefined {
  const query = (e as { query?: unknown }).query;
  if (typeof query !== "string" || !query.trim()) return undefined;
  try {
    const journal = JSON.parse(readFileSync(path.join(folder, "meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };
    return journal.entries.find(({ tag }) => readFileSync(path.join(folder, `${tag}.sql`), "utf8").includes(query.trim()))?.tag;
  } catch {
    return undefined; // the message still has the reason
  }
}

/**
 * Applies every migration in drizzle/ not yet applied. Safe to call at every start: the
 * migrator keeps its journal in the database. Returns the database with `vector` re-checked,
 * since the first migration may have created the extension. Not safe to run from two processes
 * at once on an empty server database: the app takes a lock around it (see startup.ts).
 *
 * A failure is a StartupError naming the migration; drizzle applies them in one transaction,
 * so the database is left as it was.
 */
export async function migrate(database: Database, folder = migrationsFolder): Promise<Database> {
  try {
    if (database.driver === "pglite") {
      await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder: folder });
    } else {
      await migratePostgres(database.db as unknown as PostgresJsDatabase, { migrationsFolder: folder });
    }
  } catch (e) {
    const tag = failedMigration(folder, e);
    const found = existsSync(path.join(folder, "meta/_journal.json"));
    throw new StartupError(
      {
        what: "could not migrate the database",
        where: database.location,
        reason: tag ? `migration ${tag} failed: ${reasonOf(e)}` : reasonOf(e),
        todo: found
          ? `no migration of this start was kept (they run in one transaction). Fix the cause and start again; the migrations are in ${folder}`
          : `start gligabao from its project directory: the migrations are read from ${folder}`,
      },
      { cause: e },
    );
  }
  return { ...database, vector: await detectVector(database.db) };
}
