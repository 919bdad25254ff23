import path from "node:path";
import type { Env } from "../env";
import { type Auth, authSecret, createAuth, ensureBootstrapOwner } from "./auth/better-auth";
import { ensureBootstrapKey } from "./auth/keys";
import { ensureDefaultDataset } from "./datasets/datasets";
import { type Database, openDatabase, type OpenOptions } from "./db/client";
import { migrate } from "./db/migrate";
import { reasonOf, StartupError } from "./db/startup-error";

/*
 * The database part of start-up: open, migrate, and the rows every start makes sure of (the
 * default dataset, the auth secret, the bootstrap owner and key). Any number of processes may
 * start on one server database at once, an empty one included: the whole of it runs under one
 * session advisory lock, so they go one after the other and each later one finds the work done.
 * drizzle's migrator alone is not safe to run concurrently (two processes both create its
 * journal table and both apply the first migration), nor is the bootstrap owner (both see no
 * account and both sign up).
 */

/**
 * The start-up lock's key: "gligabao" in ASCII. Outside the int4 range of the remember queue's
 * hashtext() key, so the two never collide.
 */
export const STARTUP_LOCK_KEY = 0x676c_6967_6162_616fn;

export function databaseOptions(env: Env): OpenOptions {
  return env.DATABASE_URL
    ? { driver: "postgres", url: env.DATABASE_URL }
    : { driver: "pglite", dataDir: path.join(env.GB_DATA_DIR, "pglite") };
}

/**
 * Runs `fn` holding the start-up lock (Postgres; on PGlite one process owns the data dir and
 * there is nobody to wait for). The lock takes a connection of the pool for its length, so the
 * pool needs two or more.
 */
export async function withStartupLock<T>(database: Database, fn: () => Promise<T>): Promise<T> {
  const lock = await database.sessionLock(STARTUP_LOCK_KEY).catch((e: unknown) => {
    throw new StartupError(
      { what: "could not take the start-up lock", where: database.location, reason: reasonOf(e), todo: "is the Postgres server still up? Check DATABASE_URL" },
      { cause: e },
    );
  });
  try {
    return await fn();
  } finally {
    await lock?.release();
  }
}

/** Runs one start-up write; a failure says which and what to do. */
async function step<T>(database: Database, what: string, todo: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof StartupError) throw e;
    throw new StartupError({ what, where: database.location, reason: reasonOf(e), todo }, { cause: e });
  }
}

const WRITABLE = "is the database writable (not a read-only replica, its disk not full)?";

async function prepare(env: Env, opened: Database): Promise<{ database: Database; auth: Auth }> {
  const database = await migrate(opened);
  const { db } = database;
  await step(database, "could not create the default dataset", WRITABLE, () => ensureDefaultDataset(db));
  const secret = await step(database, "could not keep the auth secret", `${WRITABLE} Or set GB_AUTH_SECRET`, () => authSecret(db, env));
  const auth = createAuth({ db, env, secret });
  const { GB_BOOTSTRAP_EMAIL: email, GB_BOOTSTRAP_PASSWORD: password, GB_BOOTSTRAP_API_KEY: key } = env;
  if (email && password) {
    await step(database, `could not make the bootstrap owner ${email}`, "check GB_BOOTSTRAP_EMAIL and GB_BOOTSTRAP_PASSWORD, or unset them and make the first owner at /admin", () =>
      ensureBootstrapOwner(db, auth, email, password),
    );
  }
  if (key) {
    await step(database, "could not make the bootstrap API key", "unset GB_BOOTSTRAP_API_KEY and make a key at /admin/keys instead", () => ensureBootstrapKey(db, key));
  }
  return { database, auth };
}

/**
 * Opens the environment's database (unless `given`), migrates it and makes sure of the start-up
 * rows, all under the start-up lock. Failures are StartupErrors (what, where, why, what to do);
 * a database opened here is closed again on failure, so that a retry finds the data dir free.
 */
export async function initialiseDatabase(env: Env, given?: Database): Promise<{ database: Database; auth: Auth }> {
  const opened = given ?? (await openDatabase(databaseOptions(env)));
  try {
    return await withStartupLock(opened, () => prepare(env, opened));
  } catch (e) {
    if (!given) await opened.close().catch(() => {});
    throw e;
  }
}
