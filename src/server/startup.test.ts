import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { afterEach, describe, expect, inject, it } from "vitest";
import { testEnv } from "../test/db";
import { spawnStartupChild } from "../test/startup-child-process";
import { LOCK_FILE } from "./db/data-dir-lock";
import { migrationsFolder } from "./db/migrate";
import { createScratchDatabase } from "./db/scratch";
import { StartupError } from "./db/startup-error";
import { initialiseDatabase } from "./startup";

/*
 * Start-up of many processes at once on one empty Postgres database: every one succeeds, the
 * migrations are applied once, and they agree on one auth secret, one default dataset, one
 * bootstrap owner and key. In one process with a connection pool each (what separate processes
 * have), and with real processes. And a start-up that fails closes what it opened.
 */

const pgUrl = inject("pgUrl");
if (!pgUrl) console.log("start-up of concurrent processes [postgres]: skipped, TEST_DATABASE_URL is unset");

const N = 5;
const bootstrap = {
  GB_BOOTSTRAP_EMAIL: "first@example.com",
  GB_BOOTSTRAP_PASSWORD: "a password of the first owner",
  GB_BOOTSTRAP_API_KEY: "gb_startup_test_key_000000000000",
};
const journal = JSON.parse(readFileSync(`${migrationsFolder}/meta/_journal.json`, "utf8")) as { entries: unknown[] };

/** The start-up rows of the database at `url`, counted. */
async function startupRows(url: string) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`SELECT
      (SELECT count(*)::int FROM drizzle.__drizzle_migrations) AS migrations,
      (SELECT count(DISTINCT hash)::int FROM drizzle.__drizzle_migrations) AS distinct_migrations,
      (SELECT array_agg(value) FROM gb_settings WHERE key = 'auth_secret') AS secrets,
      (SELECT count(*)::int FROM datasets WHERE name = 'default') AS default_datasets,
      (SELECT count(*)::int FROM gb_auth_users) AS users,
      (SELECT count(*)::int FROM gb_team_members WHERE role = 'owner') AS owners,
      (SELECT count(*)::int FROM gb_api_keys) AS keys`;
    return row;
  } finally {
    await sql.end();
  }
}

function expectOneOfEach(rows: Awaited<ReturnType<typeof startupRows>>, secrets: string[]) {
  expect(new Set(secrets).size).toBe(1);
  expect(rows).toEqual({
    migrations: journal.entries.length,
    distinct_migrations: journal.entries.length,
    secrets: [secrets[0]],
    default_datasets: 1,
    users: 1,
    owners: 1,
    keys: 1,
  });
}

describe.skipIf(!pgUrl)("start-up of concurrent processes [postgres]", () => {
  const drops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const drop of drops.splice(0)) await drop();
  });

  it(`${N} initialisations at once on an empty database, a connection pool each: all succeed, everything once`, async () => {
    const scratch = await createScratchDatabase(pgUrl!, "gb_t_start");
    drops.push(scratch.drop);
    const env = testEnv({ DATABASE_URL: scratch.url, ...bootstrap });
    const results = await Promise.allSettled(Array.from({ length: N }, () => initialiseDatabase(env)));
    const opened = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    await Promise.all(opened.map((o) => o.database.close()));
    expect(results.flatMap((r) => (r.status === "rejected" ? [String(r.reason)] : []))).toEqual([]);
    expectOneOfEach(await startupRows(scratch.url), opened.map((o) => String(o.auth.options.secret)));
  });

  it("4 processes started at once on an empty database: all succeed, everything once", async () => {
    const scratch = await createScratchDatabase(pgUrl!, "gb_t_start");
    drops.push(scratch.drop);
    const children = Array.from({ length: 4 }, () => spawnStartupChild("init", { DATABASE_URL: scratch.url, GB_MODELS: "builtin", ...bootstrap }));
    const codes = await Promise.all(children.map((c) => c.exited));
    expect(codes, children.map((c) => c.stderr()).join("\n")).toEqual([0, 0, 0, 0]);
    const secrets = children.map((c) => /^secret (.+)$/m.exec(c.stdout())?.[1] ?? "");
    expectOneOfEach(await startupRows(scratch.url), secrets);
  }, 60_000);
});

describe("a start-up that fails [pglite]", () => {
  it("says which step and why, and closes the data dir it opened, so that a retry can open it", async () => {
    const dataDir = realpathSync(mkdtempSync(path.join(tmpdir(), "gb-start-")));
    try {
      // longer than better-auth accepts (128), which env.ts does not check
      const env = testEnv({ GB_DATA_DIR: dataDir, GB_BOOTSTRAP_EMAIL: "first@example.com", GB_BOOTSTRAP_PASSWORD: "p".repeat(200) });
      const err = await initialiseDatabase(env).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StartupError);
      expect((err as StartupError).what).toBe("could not make the bootstrap owner first@example.com");
      expect((err as StartupError).where).toBe(path.join(dataDir, "pglite"));
      expect((err as StartupError).todo).toContain("check GB_BOOTSTRAP_EMAIL and GB_BOOTSTRAP_PASSWORD");
      expect(existsSync(path.join(dataDir, "pglite", LOCK_FILE))).toBe(false);

      const { database } = await initialiseDatabase(testEnv({ GB_DATA_DIR: dataDir }));
      await database.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
