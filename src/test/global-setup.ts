import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { dumpPglite, openDatabase } from "../server/db/client";
import { migrate } from "../server/db/migrate";
import { createScratchDatabase } from "../server/db/scratch";

/*
 * Once per test run: a migrated PGlite data dir dumped to a file, so each test file starts its
 * own PGlite from it in well under a second; and, when TEST_DATABASE_URL is set, a fresh
 * database on that server for this run (dropped at the end), so runs never see each other's rows
 * or an older schema. TEST_REDIS_URL, when set, is handed on as it is (src/test/redis.ts).
 */

export const PGLITE_TEMPLATE = path.resolve(".test-data/pglite-template.tar");

declare module "vitest" {
  export interface ProvidedContext {
    /** a database of this run's own on the server (admin connections, scratch databases) */
    pgUrl: string | null;
    /** a migrated database to copy for each test file's own (CREATE DATABASE … TEMPLATE) */
    pgTemplate: string | null;
    pgliteTemplate: string;
    /** TEST_REDIS_URL: a Redis the Redis tests share (each run under a key prefix of its own) */
    redisUrl: string | null;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  mkdirSync(path.dirname(PGLITE_TEMPLATE), { recursive: true });
  const lite = await migrate(await openDatabase({ driver: "pglite" }));
  const dump = await dumpPglite(lite);
  writeFileSync(PGLITE_TEMPLATE, Buffer.from(await dump.arrayBuffer()));
  await lite.close();
  project.provide("pgliteTemplate", PGLITE_TEMPLATE);
  const redisUrl = process.env.TEST_REDIS_URL || null;
  if (!redisUrl) console.log("TEST_REDIS_URL is unset: the Redis tests (shared message cache, limits) are skipped.");
  project.provide("redisUrl", redisUrl);

  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    console.log("TEST_DATABASE_URL is unset: the Postgres-server variants of the database tests are skipped.");
    project.provide("pgUrl", null);
    project.provide("pgTemplate", null);
    return async () => {};
  }
  const scratch = await createScratchDatabase(serverUrl, "gb_test");
  const template = await createScratchDatabase(serverUrl, "gb_test_tpl");
  const server = await migrate(await openDatabase({ driver: "postgres", url: template.url, max: 1 }));
  await server.close(); // a template must have no connections while it is copied
  project.provide("pgUrl", scratch.url);
  project.provide("pgTemplate", template.name);
  return async () => {
    await template.drop();
    await scratch.drop();
  };
}
