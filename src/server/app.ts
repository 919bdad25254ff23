import { Redis } from "ioredis";
import type { Env } from "../env";
import { env as processEnv } from "../env";
import type { Database } from "./db/client";
import { VectorMemo } from "./db/vector-memo";
import { type Auth, needsFirstOwner } from "./auth/better-auth";
import { createRateLimits, type RateLimits } from "./auth/rate-limit";
import { createProvider, embeddingSpace, resolveStageOptions } from "./models/factory";
import type { CallOptions, ModelProvider } from "./models/types";
import { executeRememberRun } from "./remember/execute";
import { startMaintenance } from "./db/maintenance";
import { startLookups } from "./db/lookups";
import { createRememberManager, type RememberManager, type StopReport } from "./remember/manager";
import { initialiseDatabase } from "./startup";
import { createEnrichment, type Enrichment } from "./enrich";
import { memoryCache, type MessageCache } from "./stm/cache";
import { redisCache } from "./stm/redis-cache";
import { inCluster } from "./cluster/ipc";
import { primaryMessageCache } from "./cluster/shared";
import { createRequestGate, type RequestGate } from "./requests";

// where it always was, for scripts; it moved with the rest of the database start-up
export { databaseOptions } from "./startup";

/**
 * Everything a request needs, made once per process: the database (migrated, with the default
 * dataset), the model provider and the per-stage model options from the environment.
 */
export interface App {
  readonly env: Env;
  readonly database: Database;
  readonly provider: ModelProvider;
  /** per-stage CallOptions from GB_STAGE_MODELS; a request's options go on top */
  readonly stageOptions: Readonly<Record<string, CallOptions>>;
  /** what this process embeds remembered text with (models/factory.ts): recorded on the runs it queues */
  readonly embeddingSpace: string;
  /** the remember queue's worker in this process */
  readonly remember: RememberManager;
  /** accounts and sessions (better-auth) */
  readonly auth: Auth;
  /** per-key limits of remember and query calls */
  readonly rateLimits: RateLimits;
  /** geocoder, web search and series settings (src/server/enrich) */
  readonly enrich: Enrichment;
  /** short-term memory's raw messages (src/server/stm/cache.ts; in Redis with GB_REDIS_URL: redis-cache.ts) */
  readonly stmCache: MessageCache;
  /** the API calls in flight, which stopping waits for (requests.ts) */
  readonly requests: RequestGate;
  /** without pgvector, with semantic embeddings: the vector cells' copy in this process (db/vector-memo.ts; GB_VECTOR_MEMO_MB) */
  readonly vectorMemo: VectorMemo | null;
  /**
   * Stops the worker and closes the database (and Redis). Without `graceMs` it waits for the runs in
   * progress; with it (a shutdown: GB_SHUTDOWN_GRACE_MS), it waits that long and gives the runs
   * still in flight back to the queue. API calls are served meanwhile; then new ones are refused
   * (503) and those in flight get up to REQUEST_DRAIN_MS to finish before anything closes.
   */
  close(opts?: { graceMs?: number }): Promise<StopReport>;
  /** As close, but leaves the database open: for a caller that opened it and closes it itself (benches, scripts). Closes Redis. */
  stop(opts?: { graceMs?: number }): Promise<StopReport>;
}

export interface Health {
  ok: true;
  db: Database["driver"];
  models: ModelProvider["name"];
  vector: "pgvector" | "fallback";
  /** "off" when GB_AUTH=off: every caller is the default team's owner */
  auth: "on" | "off";
  /** no account exists yet: /admin offers to make the first owner */
  needsFirstOwner: boolean;
}

export interface CreateAppOptions {
  env: Env;
  /** an open database (tests); else the one the environment names */
  database?: Database;
  /** start the remember worker (default true); off for a process that only serves reads */
  worker?: boolean;
  /** how often the worker looks for queued runs and expired leases (default 500 ms) */
  pollMs?: number;
}

/**
 * The process's Redis client (GB_REDIS_URL). While it has no connection its calls fail at once
 * (no offline queue, one retry, a command timeout) rather than hang, and it reconnects on its
 * own. Start-up waits a moment for the first connection but never fails on it: a Redis that is
 * down is an error of the calls that need it. An outage is logged once, and its end.
 */
async function openRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: false, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 3000, connectTimeout: 3000 });
  let down = false;
  redis.on("error", (e: Error) => {
    if (!down) console.error(`Redis (GB_REDIS_URL) is unavailable: ${e.message}; the calls that need it fail until it is back`);
    down = true;
  });
  redis.on("ready", () => {
    if (down) console.log("Redis (GB_REDIS_URL) is back");
    down = false;
  });
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off("ready", done).off("error", done);
      resolve();
    };
    const timer = setTimeout(done, 3000);
    redis.once("ready", done).once("error", done);
  });
  return redis;
}

/** How long stopping waits for the API calls in flight once it refuses new ones (a query takes milliseconds). */
export const REQUEST_DRAIN_MS = 5000;

async function closeRedis(redis: Redis | null): Promise<void> {
  if (!redis || redis.status === "end") return;
  if (redis.status !== "ready") return redis.disconnect();
  await redis.quit().catch(() => redis.disconnect());
}

export async function createApp({ env, database, worker = true, pollMs }: CreateAppOptions): Promise<App> {
  // open, migrate, default rows: under one lock, so that processes can start together (startup.ts)
  const { database: db, auth } = await initialiseDatabase(env, database);
  // statistics that keep up with a growing dataset (PGlite has no autovacuum; a server's is a minute behind): maintenance.ts
  // and, where pgvector is absent and the embeddings are semantic (the vector lists run), the vector cells (vector-cells.ts)
  const provider = createProvider(env);
  const maintenance = startMaintenance(db, undefined, { cells: !db.vector && provider.semanticEmbeddings });
  // API keys and datasets by name, cached; revocations and deletions heard from the other processes (lookups.ts)
  const lookups = await startLookups(db);
  // GB_REDIS_URL: one client for the message cache and the limits, which the other processes share
  const redis = env.GB_REDIS_URL ? await openRedis(env.GB_REDIS_URL) : null;
  if (redis) auth.countLimitsIn(redis);
  const stageOptions = resolveStageOptions(env.GB_STAGE_MODELS);
  const space = embeddingSpace(env, stageOptions);
  const app: App = {
    env,
    database: db,
    provider,
    stageOptions,
    embeddingSpace: space,
    auth,
    rateLimits: createRateLimits(env, redis),
    enrich: createEnrichment(env),
    // several processes behind npm start share one cache: Redis's, else their primary's
    requests: createRequestGate(),
    vectorMemo:
      !db.vector && provider.semanticEmbeddings && env.GB_VECTOR_MEMO_MB > 0
        ? new VectorMemo(env.GB_VECTOR_MEMO_MB * 1024 * 1024, (e) => console.error(`gligabao: the vector cells' copy could not be refreshed (questions read the table meanwhile): ${e instanceof Error ? e.message : String(e)}`))
        : null,
    stmCache: redis ? redisCache(redis, { prefix: env.GB_REDIS_PREFIX }) : inCluster() ? primaryMessageCache() : memoryCache(env.GB_STM_CACHE_MB * 1024 * 1024),
    remember: createRememberManager({
      db: db.db,
      concurrency: env.GB_REMEMBER_CONCURRENCY,
      leaseMs: env.GB_REMEMBER_LEASE_MS,
      pollMs,
      retry: { maxAttempts: env.GB_REMEMBER_MAX_ATTEMPTS, baseMs: env.GB_REMEMBER_RETRY_BASE_MS, maxMs: env.GB_REMEMBER_RETRY_MAX_MS },
      // Postgres: other processes see at once when this one dies; PGlite: this process owns the
      // data dir, so any run found started at start-up was left by a process that died
      liveness: (key, lockOpts) => db.sessionLock(key, lockOpts),
      // another process's runs are left to a process of their submitter's embeddings while one runs (claimNext)
      embeddingSpace: space,
      sole: db.driver === "pglite",
      // the planner's statistics of a dataset remembered into are weighed on the next pass (maintenance.ts)
      execute: (run, signal) => executeRememberRun(app, run, signal).finally(() => maintenance.wrote(run.datasetId)),
    }),
    stop: async (opts) => {
      const report = await app.remember.stop(opts);
      const unfinished = await app.requests.close(REQUEST_DRAIN_MS);
      if (unfinished > 0) console.error(`gligabao: ${unfinished} API call(s) still in flight after ${REQUEST_DRAIN_MS} ms; closing anyway`);
      await maintenance.stop();
      await app.vectorMemo?.close();
      await lookups.stop();
      await closeRedis(redis);
      return report;
    },
    close: async (opts) => {
      const report = await app.stop(opts);
      await db.close();
      return report;
    },
  };
  if (worker) app.remember.start();
  return app;
}

export async function health(app: App): Promise<Health> {
  return {
    ok: true,
    db: app.database.driver,
    models: app.provider.name,
    vector: app.database.vector ? "pgvector" : "fallback",
    auth: app.env.GB_AUTH,
    needsFirstOwner: app.env.GB_AUTH === "on" && (await needsFirstOwner(app.database.db)),
  };
}

// One App per process. Kept on globalThis so that Next's dev reloads do not open PGlite twice
// (a PGlite data dir admits one process, one instance).
const holder = globalThis as unknown as { __gligabaoApp?: Promise<App> };

export function getApp(): Promise<App> {
  holder.__gligabaoApp ??= createApp({ env: processEnv() }).catch((e: unknown) => {
    holder.__gligabaoApp = undefined;
    throw e;
  });
  return holder.__gligabaoApp;
}
