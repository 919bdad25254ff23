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
  close(): Promise<void>;
}

export async function benchDatabases(): Promise<BenchDatabase[]> {
  const out: BenchDatabase[] = [];
  const lite = await migrate(await openDatabase({ driver: "pglite" }));
  out.push({ name: "pglite", database: lite, close: () => lite.close() });

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
    close: async () => {
      await server.close();
      await scratch.drop();
    },
  });
  return out;
}
