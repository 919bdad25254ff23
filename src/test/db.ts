import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, inject } from "vitest";
import { parseEnv, type Env } from "../env";
import { type App, createApp } from "../server/app";
import { type Database, openDatabase } from "../server/db/client";
import { createScratchDatabase } from "../server/db/scratch";
import { createDataset } from "../server/datasets/datasets";
import { LOCAL_CALLER } from "../server/auth/caller";

/*
 * Database tests run on both drivers: PGlite (from the migrated template, one instance per test
 * file) and the Postgres server of TEST_DATABASE_URL (a database made for this run). Tests build
 * their own data in datasets of their own, so files can share the server.
 */

export type TestDriver = "pglite" | "postgres";

/**
 * A database for one test file. On the server, a copy of the run's migrated template, of the
 * file's own: an app's remember worker claims any queued run of its database, so files must not
 * share one. Closing it drops it.
 */
export async function openTestDatabase(driver: TestDriver): Promise<Database> {
  if (driver === "postgres") {
    const url = inject("pgUrl");
    const template = inject("pgTemplate");
    if (!url || !template) throw new Error("no Postgres server for this run (TEST_DATABASE_URL unset)");
    const scratch = await createScratchDatabase(url, "gb_t", { template });
    return dropOnClose(await openDatabase({ driver: "postgres", url: scratch.url, max: 4 }), scratch);
  }
  const template = readFileSync(inject("pgliteTemplate"));
  return openDatabase({ driver: "pglite", loadDataDir: new Blob([template]) });
}

/** The database, whose close also drops its scratch database. */
function dropOnClose(database: Database, scratch: { drop(): Promise<void> }): Database {
  return {
    ...database,
    close: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

/** An empty database, not migrated (for tests of the migrations themselves); closing it drops it. */
export async function openEmptyDatabase(driver: TestDriver, prefix: string): Promise<Database> {
  if (driver === "pglite") return openDatabase({ driver: "pglite" });
  const url = inject("pgUrl");
  if (!url) throw new Error("no Postgres server for this run (TEST_DATABASE_URL unset)");
  const scratch = await createScratchDatabase(url, prefix);
  return dropOnClose(await openDatabase({ driver: "postgres", url: scratch.url, max: 2 }), scratch);
}

/** The environment of a test app: builtin models, nothing from the shell. */
export function testEnv(overrides: Record<string, string> = {}): Env {
  return parseEnv({ GB_MODELS: "builtin", GB_DATA_DIR: ".test-data", ...overrides });
}

/**
 * Declares `fn`'s tests once per driver. The Postgres variant is skipped, with the reason
 * printed, only when TEST_DATABASE_URL is unset.
 */
export function describeEachDriver(
  name: string,
  fn: (ctx: () => { app: App; database: Database }, driver: TestDriver) => void,
  options: { env?: () => Record<string, string> } = {},
): void {
  for (const driver of ["pglite", "postgres"] as const) {
    const unavailable = driver === "postgres" && !inject("pgUrl");
    if (unavailable) console.log(`${name} [postgres]: skipped, TEST_DATABASE_URL is unset`);
    describe.skipIf(unavailable)(`${name} [${driver}]`, () => {
      let state: { app: App; database: Database } | undefined;
      beforeAll(async () => {
        const database = await openTestDatabase(driver);
        const app = await createApp({ env: testEnv(options.env?.()), database, pollMs: 50 });
        state = { app, database: app.database };
      });
      afterAll(async () => {
        await state?.app.close();
      });
      fn(() => {
        if (!state) throw new Error("test database not open yet");
        return state;
      }, driver);
    });
  }
}

/** A dataset of the test's own, with a unique name. */
export async function freshDataset(app: App, prefix = "t") {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  return createDataset({ db: app.database.db, caller: LOCAL_CALLER, input: { name } });
}
