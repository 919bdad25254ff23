import { parseEnv } from "../src/env";
import { initialiseDatabase } from "../src/server/startup";

/**
 * npm run db:migrate — applies drizzle/ to the configured database and makes its start-up rows,
 * under the same lock as the app's start (the app also does it at start).
 */
const env = parseEnv();
const { database } = await initialiseDatabase(env);
console.log(`migrated ${database.driver === "postgres" ? "the Postgres server" : "PGlite"} at ${database.location}; vector search: ${database.vector ? "pgvector" : "fallback"}`);
await database.close();
