import { expect, test } from "@playwright/test";
import { Redis } from "ioredis";
import { cleanUp, health, startServer, tempDir } from "./server";
import { ports } from "./ports";

/*
 * The built app with GB_REDIS_URL (the server code is bundled: ioredis and the error mapping must
 * work there too). With the Redis of TEST_REDIS_URL, short-term memory's messages live in it under
 * GB_REDIS_PREFIX and outlive the server process; with a Redis that is down, start-up succeeds and
 * the calls that need it are 503 SERVICE_UNAVAILABLE saying so, while the rest of the app answers.
 */

const port = ports.stmRedis;
const base = `http://127.0.0.1:${port}`;
const KEY = "gb_stm_redis_e2e_key_000000000000000";
const scope = { userId: "u1", channelId: "c1", serverId: "s1" };

test.describe.configure({ mode: "serial", timeout: 120_000 });
test.afterEach(async () => {
  await cleanUp();
});

async function trpc(path: string, input: unknown, mutation = true): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers = { "content-type": "application/json", authorization: `Bearer ${KEY}` };
  const res = mutation
    ? await fetch(`${base}/api/trpc/${path}`, { method: "POST", headers, body: JSON.stringify({ json: input }) })
    : await fetch(`${base}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test("with Redis: the messages live there under the prefix and outlive the server process", async () => {
  const url = process.env.TEST_REDIS_URL;
  test.skip(!url, "TEST_REDIS_URL is unset");
  const prefix = `gb-e2e-${Date.now().toString(36)}`;
  const dir = tempDir("stm-redis");
  const env = { GB_AUTH: "on", GB_BOOTSTRAP_API_KEY: KEY, GB_REDIS_URL: url!, GB_REDIS_PREFIX: prefix };
  const redis = new Redis(url!);
  try {
    const first = startServer(port, dir, env);
    await health(port, 60_000);
    expect((await trpc("stm.capture", { dataset: "default", scope, messages: [{ role: "user", content: "kept in Redis" }] })).status).toBe(200);
    expect((await redis.keys(`${prefix}:stm:*`)).length).toBeGreaterThan(0);
    first.proc.kill("SIGTERM");
    await first.exited;
    startServer(port, dir, env);
    await health(port, 60_000);
    const c = await trpc("stm.context", { dataset: "default", scope }, false);
    expect(c.status).toBe(200);
    expect(JSON.stringify(c.body)).toContain("kept in Redis");
  } finally {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
});

test("with a Redis that is down: start-up succeeds, the calls that need it are 503 saying so, the rest answers", async () => {
  startServer(port, tempDir("stm-redis-down"), { GB_AUTH: "on", GB_BOOTSTRAP_API_KEY: KEY, GB_REDIS_URL: "redis://127.0.0.1:1" });
  await health(port, 60_000);
  const captured = await trpc("stm.capture", { dataset: "default", scope, messages: [{ role: "user", content: "lost?" }] });
  expect(captured.status).toBe(503);
  expect(captured.body).toMatchObject({ error: { json: { message: expect.stringContaining("unavailable"), data: { code: "SERVICE_UNAVAILABLE" } } } });
  expect(JSON.stringify(captured.body)).not.toContain("127.0.0.1:1");
  // a key's query is rate-limited in Redis: refused too, not let through uncounted
  expect((await trpc("query.ask", { dataset: "default", question: "anything?" })).status).toBe(503);
  // what needs no Redis answers
  expect((await trpc("datasets.list", undefined, false)).status).toBe(200);
  // short-term memory's reads need the cache too (the durable row written before it is checked in src/server/stm/redis.test.ts)
  expect((await trpc("stm.scopes", { dataset: "default" }, false)).status).toBe(503);
});
