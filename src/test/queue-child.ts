import { sql } from "drizzle-orm";
import { openDatabase } from "../server/db/client";
import { createRememberManager } from "../server/remember/manager";
import { attachRunLog } from "../server/runs/run-log";

/*
 * A process with a remember manager, for the multi-process tests of the remember manager
 * (src/server/remember/manager/processes.test.ts). Run with
 *   node --import tsx src/test/queue-child.ts
 * and the environment:
 *   QUEUE_CHILD_DB_URL       the Postgres database (required)
 *   QUEUE_CHILD_MODE         "hang": execute starts the first stage, then never returns (to be
 *                            killed); "work": execute records the run in QUEUE_CHILD_EXEC_TABLE,
 *                            works QUEUE_CHILD_WORK_MS and finishes the run
 *   QUEUE_CHILD_OWNER        the manager's lease owner
 *   QUEUE_CHILD_LEASE_MS, QUEUE_CHILD_POLL_MS, QUEUE_CHILD_CONCURRENCY, QUEUE_CHILD_WORK_MS
 *   QUEUE_CHILD_EXEC_TABLE   "work": table (run_id uuid, owner text, started timestamptz,
 *                            ended timestamptz) the test made
 *   QUEUE_CHILD_LIVENESS     "1": hold a liveness lock (Database.sessionLock), as the app does
 *   QUEUE_CHILD_SPACE        the manager's embeddings (RememberManagerOptions.embeddingSpace)
 * Prints "ready" once the manager is started and "started <run id>" when a run starts; on
 * SIGTERM it stops the manager (waiting for its runs) and closes the database, and should then
 * exit by itself (code 0): the manager's timers are unref'd.
 */

const env = process.env;
const url = env.QUEUE_CHILD_DB_URL;
if (!url) throw new Error("QUEUE_CHILD_DB_URL is unset");
const mode = env.QUEUE_CHILD_MODE ?? "work";
const owner = env.QUEUE_CHILD_OWNER ?? `queue-child:${process.pid}`;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const workMs = num("QUEUE_CHILD_WORK_MS", 50);
const table = env.QUEUE_CHILD_EXEC_TABLE ?? "";
if (mode === "work" && !/^[a-z0-9_]+$/.test(table)) throw new Error("QUEUE_CHILD_EXEC_TABLE must be a plain table name");

const database = await openDatabase({ driver: "postgres", url, max: 4 });
const db = database.db;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const manager = createRememberManager({
  db,
  owner,
  concurrency: num("QUEUE_CHILD_CONCURRENCY", 2),
  leaseMs: num("QUEUE_CHILD_LEASE_MS", 1000),
  pollMs: num("QUEUE_CHILD_POLL_MS", 50),
  liveness: env.QUEUE_CHILD_LIVENESS === "1" ? (key, lockOpts) => database.sessionLock(key, lockOpts) : undefined,
  ...(env.QUEUE_CHILD_SPACE ? { embeddingSpace: env.QUEUE_CHILD_SPACE } : {}),
  log: (message, error) => console.error(`[${owner}] ${message}`, error ?? ""),
  async execute(run) {
    const log = attachRunLog(db, "remember", run);
    if (mode === "hang") {
      await log.start("classify_complexity");
      console.log(`started ${run.id}`);
      await new Promise(() => {});
    }
    const t = sql.raw(table);
    await db.execute(sql`INSERT INTO ${t} (run_id, owner, started) VALUES (${run.id}, ${owner}, clock_timestamp())`);
    console.log(`started ${run.id}`);
    await log.start("classify_complexity");
    await sleep(workMs);
    log.done("classify_complexity", null);
    await db.execute(sql`UPDATE ${t} SET ended = clock_timestamp() WHERE run_id = ${run.id} AND owner = ${owner}`);
    await log.finish(null);
  },
});

// The manager's timers are unref'd; this one keeps the process up until it is told to go.
const keepAlive = setInterval(() => {}, 60_000);
// No process.exit: the test checks that nothing of the stopped manager keeps the process up.
process.on("SIGTERM", () => {
  void (async () => {
    await manager.stop();
    await database.close();
    clearInterval(keepAlive);
  })();
});

manager.start();
console.log("ready");
