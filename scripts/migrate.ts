import { parseEnv } from "../src/env";
import { databaseOptions } from "../src/server/app";
import { openDatabase } from "../src/server/db/client";
import { migrate } from "../src/server/db/migrate";
import { ensureDefaultDataset } from "../src/server/datasets/datasets";

/** npm run db:migrate — applies drizzle/ to the configured database (the app also does at start). */
const env = parseEnv();
const opts = databaseOptions(env);
const database = await migrate(await openDatabase(opts));
await ensureDefaultDataset(database.db);
console.log(
  `migrated ${opts.driver === "postgres" ? "the Postgres server" : `PGlite at ${opts.dataDir}`}; vector search: ${database.vector ? "pgvector" : "fallback"}`,
);
await database.close();
