import { mkdirSync, realpathSync } from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { type SQLWrapper, sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { lockDataDir } from "./data-dir-lock";
import { PgliteThread } from "./pglite-thread";
import { dataDirError, pgliteOpenError, postgresOpenError } from "./open-errors";
import { queryRows } from "./rows";
import * as schema from "./schema";
import { redactUrl } from "./startup-error";

/** One Drizzle type for both drivers: code above this file never knows which it has. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type DriverName = "pglite" | "postgres";

export interface Database {
  readonly db: Db;
  /**
   * The same database, where a statement is planned once for whatever values it is given
   * (plan_cache_mode force_generic_plan: Postgres, connections of its own; PGlite, set while each
   * of its statements runs: PgliteThread.generic). Only for statements written so that one plan holds at every dataset size and for
   * every value: the lists' one statement (query/retrieve.ts, #16), whose planning was half its time.
   */
  readonly genericDb: Db;
  readonly driver: DriverName;
  /** pgvector is installed in this database (else vector search uses the fallback) */
  readonly vector: boolean;
  /** for messages: PGlite's resolved data dir ("in memory"), or the server's URL without its password */
  readonly location: string;
  /**
   * Takes a session-level advisory lock on a connection of its own and holds it until released
   * (waiting while another session holds it). Postgres only: null on PGlite, where one process
   * owns the database and there is nobody to exclude.
   */
  sessionLock(key: bigint, opts?: SessionLockOptions): Promise<SessionLock | null>;
  /**
   * Listens on a NOTIFY channel on a connection of its own (Postgres only: null on PGlite, where
   * one process owns the database and has nobody to hear from). `onListen` is called each time
   * the listening starts, the first and after a reconnect: what was sent while it was down is lost.
   */
  listen(channel: string, onMessage: (payload: string) => void, onListen: () => void): Promise<Listening | null>;
  close(): Promise<void>;
}

/** A LISTEN in progress. */
export interface Listening {
  /** stops listening; never throws */
  stop(): Promise<void>;
}

export interface SessionLockOptions {
  /**
   * Names also locked in shared mode on the same connection (sharedLockKey), held and let go with
   * the lock: that some live process holds a name is seen in pg_locks (the remember queue's
   * embeddings, claimNext).
   */
  shared?: readonly string[];
}

/** The advisory lock key of a name locked in shared mode (SessionLockOptions.shared), in SQL. */
export const sharedLockKey = (name: SQLWrapper) => sql`hashtextextended(${name}, 0)`;

/** A session advisory lock held on a dedicated connection. */
export interface SessionLock {
  readonly key: bigint;
  /** whether the connection (and so the lock) is still there: a round trip on it */
  alive(): Promise<boolean>;
  /** unlocks and gives the connection back; never throws */
  release(): Promise<void>;
}

/** Locks on a reserved postgres.js connection: a session lock must stay on one connection. */
async function postgresSessionLock(client: postgres.Sql, key: bigint, opts: SessionLockOptions = {}): Promise<SessionLock> {
  const reserved = await client.reserve();
  const shared = [...(opts.shared ?? [])];
  try {
    await reserved`SELECT pg_advisory_lock(${key.toString()}::bigint)`;
    // sharedLockKey's key, written out: this is postgres.js, not drizzle
    if (shared.length > 0) await reserved`SELECT pg_advisory_lock_shared(hashtextextended(n, 0)) FROM unnest(${shared}::text[]) AS n`;
  } catch (e) {
    // what was taken before the failure is not to stay with the connection in the pool
    await reserved`SELECT pg_advisory_unlock_all()`.catch(() => {});
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
        if (shared.length > 0) await reserved`SELECT pg_advisory_unlock_shared(hashtextextended(n, 0)) FROM unnest(${shared}::text[]) AS n`;
      } catch {
        // the connection is gone, and the lock with it
      }
      reserved.release();
    },
  };
}

export type OpenOptions =
  /** onStatement: told the text of every statement sent (tests count a call's round trips) */
  | { driver: "postgres"; url: string; max?: number; onStatement?: (statement: string, params: readonly unknown[]) => void }
  /** dataDir undefined = in memory; loadDataDir = start from a dumped data dir (tests) */
  | { driver: "pglite"; dataDir?: string; loadDataDir?: Blob };

async function hasVector(db: Db): Promise<boolean> {
  const rows = await queryRows<{ ok: number }>(
    db,
    sql`SELECT 1 AS ok FROM pg_extension WHERE extname = 'vector'`,
  );
  return rows.length > 0;
}

/**
 * The data dir made if missing and resolved through symlinks: PGlite's file system (Emscripten's)
 * cannot mount a symlinked directory (it fails with "ErrnoError 44"), and the lock file must be
 * the same for every path to the directory.
 */
function resolveDataDir(dataDir: string): string {
  const dir = path.resolve(dataDir);
  try {
    mkdirSync(dir, { recursive: true });
    return realpathSync(dir);
  } catch (e) {
    throw dataDirError(dir, e);
  }
}

async function openPgliteOnDisk(dataDir: string, loadDataDir: Blob | undefined): Promise<Database> {
  const dir = resolveDataDir(dataDir);
  // the lock file is the first thing written there: its errors are the directory's
  const lock = await lockDataDir(dir).catch((e: unknown) => {
    throw dataDirError(dir, e);
  });
  let client: PgliteThread | undefined;
  try {
    client = await PgliteThread.create({ dataDir: dir, loadDataDir });
    // a dump holds the data dir's files, a lock file of the process that made it among them
    if (loadDataDir) lock.rewrite();
    const db = pgliteDrizzle(client);
    const opened = client;
    return {
      db,
      genericDb: pgliteDrizzle(client.generic()),
      driver: "pglite",
      vector: await hasVector(db),
      location: dir,
      sessionLock: async () => null,
      listen: async () => null,
      close: async () => {
        try {
          await opened.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (e) {
    await client?.close().catch(() => {});
    lock.release();
    throw pgliteOpenError(dir, e);
  }
}

/** Drizzle over PGlite in its thread: the thread's handle has the part of PGlite's interface drizzle uses. */
const pgliteDrizzle = (client: Pick<PgliteThread, "query" | "exec" | "transaction">) => drizzlePglite({ client: client as unknown as PGlite, schema }) as unknown as Db;

async function openPglite(opts: { dataDir?: string; loadDataDir?: Blob }): Promise<Database> {
  if (opts.dataDir) return openPgliteOnDisk(opts.dataDir, opts.loadDataDir);
  const client = await PgliteThread.create({ loadDataDir: opts.loadDataDir });
  const db = pgliteDrizzle(client);
  return { db, genericDb: pgliteDrizzle(client.generic()), driver: "pglite", vector: await hasVector(db), location: "in memory", sessionLock: async () => null, listen: async () => null, close: () => client.close() };
}

/**
 * The client drizzle is given: every statement it sends is a named prepared statement. drizzle
 * sends its statements unprepared (unless named), and postgres.js then asks the server to
 * describe each one that has parameters in a round trip of its own before running it, and the
 * server parses and plans it again each time. Prepared, a statement is described and parsed once
 * per connection (postgres.js keeps them by text; a connection lives 30 to 60 minutes) and planned
 * once when Postgres finds a generic plan as good as the custom ones. That took query.ask from 83
 * to 127 a second with 16 callers at 10k facts, and its p50 from 17 to 10 ms (#16). A
 * transaction's client (begin, savepoint) is wrapped the same way. `?prepare=false` on the URL
 * turns it off, for a pooler in transaction mode that cannot keep them (PgBouncer before 1.21).
 */
function preparing<T extends object>(client: T): T {
  const wrapped: Record<string, unknown> = {
    unsafe: (query: string, parameters?: unknown[], options?: object) => (client as unknown as postgres.Sql).unsafe(query, parameters as postgres.ParameterOrJSON<never>[], { ...options, prepare: true }),
  };
  // begin([options], fn) and savepoint([name], fn): the callback's client prepares too
  for (const key of ["begin", "savepoint"]) {
    wrapped[key] = (...args: unknown[]) => {
      const fn = args.pop() as (c: object) => unknown;
      return (client as unknown as Record<string, (...a: unknown[]) => unknown>)[key]!(...args, (c: object) => fn(preparing(c)));
    };
  }
  return new Proxy(client, { get: (target, key, receiver) => (typeof key === "string" && key in wrapped && key in target ? wrapped[key] : Reflect.get(target, key, receiver)) });
}

/**
 * Every statement planned for its own values (both drivers): statements are prepared once per
 * connection and run for every dataset, and after five runs Postgres may keep a generic plan,
 * one made for any dataset_id, if it looks no dearer than those it made. Chosen while small
 * datasets were asked, that plan is far dearer for a large one: query.ask at 100k facts took
 * 33 ms after 60 questions to a 10k dataset, 14 ms without them (the lists' one statement). A
 * custom plan costs its planning (about 3 ms for the lists) and never that.
 */
export const PLAN_CACHE_MODE = "force_custom_plan";

/**
 * genericDb's: one plan per statement and connection, made without the values, so a statement is
 * not planned again each time it runs. Only the lists' one statement of a question goes there
 * (query/retrieve.ts's listsDbFor), written so that its plan does not depend on the values: each
 * list reads by key, by a full-text index that starts with dataset_id (migration 0025), or by a
 * sample in key order (a question of only common words: lists/shared.ts's textRows). Measured at 1k, 10k and 100k facts (three datasets in one database), that
 * statement for a question naming a person took 1.5-2.8 ms where a plan made for each question's
 * values took 3.2-5.8 (round trip included).
 */
export const GENERIC_PLAN_CACHE_MODE = "force_generic_plan";

/**
 * Opens a database. Does not migrate (see migrate.ts): `vector` reflects the extensions present
 * now, so callers that migrate re-check with `detectVector` afterwards. A database that cannot
 * be opened is a StartupError saying where and what to do.
 */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.driver === "pglite") return openPglite(opts);
  const onStatement = opts.onStatement;
  const connect = (planCacheMode: string) =>
    postgres(opts.url, {
      max: opts.max ?? 10,
      onnotice: () => {},
      // JIT off: the lists' one statement is estimated dear enough on a large dataset to be
      // compiled (jit_above_cost), and compiling took 138 ms of a 187 ms statement at 100k facts
      connection: { plan_cache_mode: planCacheMode, jit: "off" },
      ...(onStatement ? { debug: (_connection: number, query: string, params: unknown[]) => onStatement(query, params) } : {}),
    });
  const client = connect(PLAN_CACHE_MODE);
  // connections open as they are first used: those of genericDb only where a question is asked
  const genericClient = connect(GENERIC_PLAN_CACHE_MODE);
  // `?prepare=false` on the URL (a pooler that cannot keep prepared statements) leaves them unprepared
  const drizzleOf = (c: postgres.Sql) => drizzlePostgres({ client: c.options.prepare === false ? c : preparing(c), schema }) as unknown as Db;
  const db = drizzleOf(client);
  const genericDb = drizzleOf(genericClient);
  let hasVectorNow: boolean;
  try {
    // the first query: it is the one that connects
    hasVectorNow = await hasVector(db);
  } catch (e) {
    await Promise.all([client.end({ timeout: 0 }).catch(() => {}), genericClient.end({ timeout: 0 }).catch(() => {})]);
    throw postgresOpenError(opts.url, e);
  }
  return {
    db,
    genericDb,
    driver: "postgres",
    vector: hasVectorNow,
    location: redactUrl(opts.url),
    sessionLock: (key, lockOpts) => postgresSessionLock(client, key, lockOpts),
    listen: async (channel, onMessage, onListen) => {
      const { unlisten } = await client.listen(channel, onMessage, onListen);
      return { stop: () => unlisten().catch(() => {}) };
    },
    close: async () => {
      await Promise.all([client.end(), genericClient.end()]);
    },
  };
}

export { hasVector as detectVector };

/** A dump of a PGlite database's data dir, to start another from it quickly (tests, bench). */
export async function dumpPglite(database: Database): Promise<Blob> {
  if (database.driver !== "pglite") throw new Error("dumpPglite needs a PGlite database");
  // drizzle keeps its client on `$client`
  const client = (database.db as unknown as { $client: PgliteThread }).$client;
  return client.dumpDataDir("none");
}
