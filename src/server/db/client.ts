import { mkdirSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { vector } from "@electric-sql/pglite-pgvector";
import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { queryRows } from "./rows";
import * as schema from "./schema";

/** One Drizzle type for both drivers: code above this file never knows which it has. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DriverName = "pglite" | "postgres";

export interface Database {
  readonly db: Db;
  readonly driver: DriverName;
  /** pgvector is installed in this database (else vector search uses the fallback) */
  readonly vector: boolean;
  /**
   * Takes a session-level advisory lock on a connection of its own and holds it until released
   * (waiting while another session holds it). Postgres only: null on PGlite, where one process
   * owns the database and there is nobody to exclude.
   */
  sessionLock(key: bigint): Promise<SessionLock | null>;
  close(): Promise<void>;
}

/** A session advisory lock held on a dedicated connection. */
export interface SessionLock {
  readonly key: bigint;
  /** whether the connection (and so the lock) is still there: a round trip on it */
  alive(): Promise<boolean>;
  /** unlocks and gives the connection back; never throws */
  release(): Promise<void>;
}

/** Locks on a reserved postgres.js connection: a session lock must stay on one connection. */
async function postgresSessionLock(client: postgres.Sql, key: bigint): Promise<SessionLock> {
  const reserved = await client.reserve();
  try {
    await reserved`SELECT pg_advisory_lock(${key.toString()}::bigint)`;
  } catch (e) {
    reserved.release();
    throw e;
  }
  let released = false;
  return {
    key,
    async alive() {
      if (released) return false;
      try {
        await reserved`SELECT 1`;
        return true;
      } catch {
        return false;
      }
    },
    async release() {
      if (released) return;
      released = true;
      try {
        await reserved`SELECT pg_advisory_unlock(${key.toString()}::bigint)`;
      } catch {
        // the connection is gone, and the lock with it
      }
      reserved.release();
    },
  };
}

export type OpenOptions =
  | { driver: "postgres"; url: string; max?: number }
  /** dataDir undefined = in memory; loadDataDir = start from a dumped data dir (tests) */
  | { driver: "pglite"; dataDir?: string; loadDataDir?: Blob };

async function hasVector(db: Db): Promise<boolean> {
  const rows = await queryRows<{ ok: number }>(
    db,
    sql`SELECT 1 AS ok FROM pg_extension WHERE extname = 'vector'`,
  );
  return rows.length > 0;
}

async function openPglite(opts: { dataDir?: string; loadDataDir?: Blob }) {
  if (opts.dataDir) mkdirSync(path.dirname(path.resolve(opts.dataDir)), { recursive: true });
  const client = await PGlite.create({
    dataDir: opts.dataDir,
    loadDataDir: opts.loadDataDir,
    extensions: { vector, pg_trgm },
  });
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return { db, close: () => client.close(), client };
}

/**
 * Opens a database. Does not migrate (see migrate.ts): `vector` reflects the extensions present
 * now, so callers that migrate re-check with `detectVector` afterwards.
 */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.driver === "postgres") {
    const client = postgres(opts.url, { max: opts.max ?? 10, onnotice: () => {} });
    const db = drizzlePostgres({ client, schema }) as unknown as Db;
    return {
      db,
      driver: "postgres",
      vector: await hasVector(db),
      sessionLock: (key) => postgresSessionLock(client, key),
      close: () => client.end(),
    };
  }
  const { db, close } = await openPglite(opts);
  return { db, driver: "pglite", vector: await hasVector(db), sessionLock: async () => null, close };
}

export { hasVector as detectVector };

/** A dump of a PGlite database's data dir, to start another from it quickly (tests, bench). */
export async function dumpPglite(database: Database): Promise<Blob> {
  if (database.driver !== "pglite") throw new Error("dumpPglite needs a PGlite database");
  // drizzle keeps its client on `$client`
  const client = (database.db as unknown as { $client: PGlite }).$client;
  return client.dumpDataDir("none");
}
