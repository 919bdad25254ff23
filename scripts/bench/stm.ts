import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { parseEnv } from "../../src/env";
import { createApp } from "../../src/server/app";
import { LOCAL_CALLER } from "../../src/server/auth/caller";
import type { Db } from "../../src/server/db/client";
import { createDataset } from "../../src/server/datasets/datasets";
import { capture, context } from "../../src/server/stm/stm";
import type { BenchDatabase } from "./databases";
import { BENCH_KEY, pct, waitUp } from "./query";

/*
 * Short-term memory's figures (#14): stm.capture and stm.context p50/p99 at `scopes` scope keys
 * (users with five channels each), in process and over HTTP, with the in-process message cache
 * and, when BENCH_REDIS_URL (or TEST_REDIS_URL) is set, with Redis.
 */

const CHANNELS_PER_USER = 5;

/** `scopes` user keys of a new dataset, made in one statement (their messages come with the measured captures). */
async function seedScopes(db: Db, scopes: number): Promise<string> {
  const ds = await createDataset({ db, caller: LOCAL_CALLER, input: { name: `bench-stm-${randomUUID().slice(0, 8)}` } });
  await db.execute(sql`INSERT INTO short_term_memories (dataset_id, key, kind, user_id, channel_id, writers, epoch)
    SELECT ${ds.id}::uuid, 'shortterm:user:u' || (i / ${CHANNELS_PER_USER}) || ':c' || i, 'user', 'u' || (i / ${CHANNELS_PER_USER}), 'c' || i,
           ARRAY['u' || (i / ${CHANNELS_PER_USER})], gen_random_uuid()
    FROM generate_series(0, ${scopes - 1}) AS i`);
  await db.execute(sql`ANALYZE short_term_memories`);
  return ds.name;
}

const scopeOf = (i: number, scopes: number) => {
  const c = (i * 7919) % scopes;
  return { userId: `u${Math.floor(c / CHANNELS_PER_USER)}`, channelId: `c${c}` };
};
const message = (i: number) => ({ role: "user" as const, content: `message ${i}: we talked about the trip to Porto and the train times` });

export function redisUrl(): string | undefined {
  return process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
}

/** In process: the verbs called directly. */
export async function benchStm(dbs: BenchDatabase[], scopes: number, calls: number): Promise<string[][]> {
  const rows: string[][] = [["db", "cache", "scopes", "calls", "capture p50 ms", "capture p99 ms", "context p50 ms", "context p99 ms"]];
  const caches: [string, Record<string, string>][] = [["memory", {}]];
  const redis = redisUrl();
  if (redis) caches.push(["redis", { GB_REDIS_URL: redis, GB_REDIS_PREFIX: `bench-${randomUUID().slice(0, 8)}` }]);
  for (const d of dbs) {
    const dataset = await seedScopes(d.database.db, scopes);
    for (const [cache, env] of caches) {
      const app = await createApp({ env: parseEnv({ GB_MODELS: "builtin", ...env }), database: d.database, worker: false });
      try {
        const caps: number[] = [];
        const ctxs: number[] = [];
        for (let i = -20; i < calls; i++) {
          const scope = scopeOf(i + 20, scopes);
          let t = performance.now();
          await capture({ app, caller: LOCAL_CALLER, input: { dataset, scope, messages: [message(i)] } });
          if (i >= 0) caps.push(performance.now() - t);
          t = performance.now();
          await context({ app, caller: LOCAL_CALLER, input: { dataset, scope, mode: "mixed" } });
          if (i >= 0) ctxs.push(performance.now() - t);
        }
        const f = (x: number) => x.toFixed(2);
        rows.push([d.name, cache, String(scopes), String(calls), f(pct(caps, 50)), f(pct(caps, 99)), f(pct(ctxs, 50)), f(pct(ctxs, 99))]);
      } finally {
        await app.stop();
      }
    }
  }
  return rows;
}

/** Over HTTP: a server process of its own (scripts/bench/serve.ts), one client, key auth. */
export async function benchStmHttp(d: BenchDatabase, env: Record<string, string>, scopes: number, calls: number): Promise<string[][]> {
  const rows: string[][] = [];
  const dataset = await seedScopes(d.database.db, scopes);
  if (d.name === "pglite") await d.database.close(); // one PGlite data dir admits one process
  const caches: [string, Record<string, string>][] = [["memory", {}]];
  const redis = redisUrl();
  if (redis) caches.push(["redis", { GB_REDIS_URL: redis, GB_REDIS_PREFIX: `bench-${randomUUID().slice(0, 8)}` }]);
  for (const [cache, cacheEnv] of caches) {
    const port = 3900 + Math.floor(Math.random() * 90);
    const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/bench/serve.ts"], {
      env: { ...process.env, ...env, ...cacheEnv, GB_MODELS: "builtin", BENCH_PORT: String(port), GB_BOOTSTRAP_API_KEY: BENCH_KEY },
      stdio: ["ignore", "ignore", "inherit"],
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitUp(`${base}/api/health`);
      const call = async (path: string, input: unknown, query: boolean) => {
        const headers = { "content-type": "application/json", authorization: `Bearer ${BENCH_KEY}` };
        const res = query
          ? await fetch(`${base}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, { headers })
          : await fetch(`${base}/api/trpc/${path}`, { method: "POST", headers, body: JSON.stringify({ json: input }) });
        if (!res.ok) throw new Error(`${path} over HTTP failed: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      };
      const caps: number[] = [];
      const ctxs: number[] = [];
      for (let i = -20; i < calls; i++) {
        const scope = scopeOf(i + 20, scopes);
        let t = performance.now();
        await call("stm.capture", { dataset, scope, messages: [message(i)] }, false);
        if (i >= 0) caps.push(performance.now() - t);
        t = performance.now();
        await call("stm.context", { dataset, scope }, true);
        if (i >= 0) ctxs.push(performance.now() - t);
      }
      const f = (x: number) => x.toFixed(2);
      rows.push([`${d.name} (HTTP)`, cache, String(scopes), String(calls), f(pct(caps, 50)), f(pct(caps, 99)), f(pct(ctxs, 50)), f(pct(ctxs, 99))]);
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  }
  return rows;
}
