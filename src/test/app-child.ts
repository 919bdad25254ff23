import { sql } from "drizzle-orm";
import { parseEnv } from "../env";
import { createApp } from "../server/app";
import { LOCAL_CALLER } from "../server/auth/caller";
import { createDataset } from "../server/datasets/datasets";
import { queryRows } from "../server/db/rows";
import { submitRemember } from "../server/remember/submit";
import { installShutdown } from "../server/shutdown";
import { crashTexts } from "./crash-texts";

/*
 * The whole app (real pipeline, builtin models) in a process of its own, for the crash test
 * (src/server/remember/crash.test.ts), which kills it with SIGKILL and SIGTERM. Run with
 *   node --import tsx src/test/app-child.ts
 * and the environment:
 *   APP_CHILD_DATA_DIR | APP_CHILD_DATABASE_URL   the database (a PGlite data dir, or a server)
 *   APP_CHILD_TEXTS       submit the crash texts 0..N-1 to the datasets crash-a and crash-b
 *                         (alternating), each with its idempotency key: a child started again
 *                         submits them all again, as a client retrying would, and nothing is
 *                         queued twice
 *   APP_CHILD_EXIT_WHEN_DONE  "1": close and exit 0 once every run has ended
 *   APP_CHILD_GRACE_MS    GB_SHUTDOWN_GRACE_MS (default 0: SIGTERM hands back what is in flight)
 * Prints "ready" once the texts are submitted, then "progress <queued> <started> <succeeded>
 * <failed> <held>" every 50 ms (held: the runs this process is running). SIGTERM and SIGINT go through the app's own shutdown (shutdown.ts).
 */

const e = process.env;
const env = parseEnv({
  GB_MODELS: "builtin",
  GB_DATA_DIR: e.APP_CHILD_DATA_DIR ?? "",
  DATABASE_URL: e.APP_CHILD_DATABASE_URL ?? "",
  GB_AUTH: "off",
  // small chunks: every text is several chunks, so a kill lands between two of them
  GB_CHUNK_TOKENS: "32",
  GB_CHUNK_OVERLAP_TOKENS: "0",
  GB_REMEMBER_LEASE_MS: "3000",
  GB_REMEMBER_RETRY_BASE_MS: "50",
  GB_REMEMBER_RETRY_MAX_MS: "200",
  GB_REMEMBER_CONCURRENCY: "2",
  GB_SHUTDOWN_GRACE_MS: e.APP_CHILD_GRACE_MS ?? "0",
});

// the worker starts once the texts are submitted: "ready" means "processing from now on"
const app = await createApp({ env, pollMs: 50, worker: false });
installShutdown({ app: async () => app, graceMs: env.GB_SHUTDOWN_GRACE_MS, log: (m) => console.error(m) });
const db = app.database.db;

async function dataset(name: string) {
  // a CONFLICT when an earlier child (or the other one) made it
  await createDataset({ db, caller: LOCAL_CALLER, input: { name } }).catch(() => {});
}
await dataset("crash-a");
await dataset("crash-b");

const n = Number(e.APP_CHILD_TEXTS ?? 0);
for (const [i, text] of crashTexts(n).entries()) {
  await submitRemember({ app, caller: LOCAL_CALLER, input: { dataset: i % 2 ? "crash-b" : "crash-a", text, idempotencyKey: `crash-${i}` } });
}
app.remember.start();
console.log("ready");

const timer = setInterval(() => {
  void (async () => {
    const rows = await queryRows<{ status: string; n: number }>(db, sql`SELECT status, count(*)::int AS n FROM gb_remember_runs GROUP BY status`);
    const of = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
    // the runs this process holds (its manager's lease owner is host:pid:random)
    const [mine] = await queryRows<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM gb_remember_runs WHERE status = 'started' AND lease_owner LIKE ${`%:${process.pid}:%`}`,
    );
    console.log(`progress ${of("queued")} ${of("started")} ${of("succeeded")} ${of("failed")} ${Number(mine?.n ?? 0)}`);
    if (e.APP_CHILD_EXIT_WHEN_DONE === "1" && of("queued") + of("started") === 0) {
      clearInterval(timer);
      await app.close();
      console.log("done");
      process.exit(0);
    }
  })().catch(() => {});
}, 50);
