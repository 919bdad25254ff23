import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Database, openDatabase } from "../../src/server/db/client";
import { migrate } from "../../src/server/db/migrate";
import { createScratchDatabase } from "../../src/server/db/scratch";

/**
 * The databases a benchmark runs on: a fresh in-memory PGlite, and a fresh database on the
 * Postgres server of BENCH_DATABASE_URL / TEST_DATABASE_URL / DATABASE_URL when one is set
 * (dropped afterwards).
 */
export interface BenchDatabase {
  name: "pglite" | "postgres";
  database: Database;
  /** PGlite's GB_DATA_DIR when it is on disk; the server database's URL */
  dataDir?: string;
  url?: string;
  close(): Promise<void>;
}

/** `pgliteDir`: PGlite on disk (under a temporary GB_DATA_DIR) rather than in memory. */
export async function benchDatabases(options: { pgliteDir?: boolean } = {}): Promise<BenchDatabase[]> {
  const out: BenchDatabase[] = [];
  const dataDir = options.pgliteDir ? mkdtempSync(path.join(tmpdir(), "gb-bench-")) : undefined;
  const lite = await migrate(await openDatabase({ driver: "pglite", dataDir: dataDir && path.join(dataDir, "pglite") }));
  out.push({
    name: "pglite",
    database: lite,
    dataDir,
    close: async () => {
      await lite.close().catch(() => {});
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  });

  const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!serverUrl) {
    console.log("(no BENCH_DATABASE_URL / TEST_DATABASE_URL / DATABASE_URL: Postgres server figures left out)");
    return out;
  }
  const scratch = await createScratchDatabase(serverUrl, "gb_bench");
  const server = await migrate(await openDatabase({ driver: "postgres", url: scratch.url, max: 4 }));
  out.push({
    name: "postgres",
    database: server,
    url: scratch.url,
    close: async () => {
      await server.close();
      await scratch.drop();
    },
  });
  return out;
}
