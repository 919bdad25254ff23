import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOWN_REDIS_URL, describeWithRedis } from "../../test/redis";
import { errorKind } from "../errors";
import { type CachedMessage, cacheKey, type MessageCache, memoryCache } from "./cache";
import { redisCache } from "./redis-cache";

/*
 * The MessageCache contract, the same table run on the in-process cache and on Redis: each test
 * has datasets of its own (random ids), so the Redis variant can share its prefix between tests.
 */

const msg = (content: string, userId = "u1", authorId?: string): CachedMessage => ({
  role: "user",
  content,
  at: "2025-01-01T00:00:00.000Z",
  userId,
  ...(authorId ? { authorId } : {}),
});
const contents = (lists: CachedMessage[][]) => lists.map((l) => l.map((m) => m.content));

function contract(cache: () => MessageCache) {
  const ds = () => randomUUID();

  it("keeps the last `max` messages of each key, oldest first, with their fields", async () => {
    const d = ds();
    const a = { cacheKey: cacheKey(d, "shortterm:user:u1:c1"), epoch: "e1" };
    const b = { cacheKey: cacheKey(d, "shortterm:server:s1:c1"), epoch: "e2" };
    for (let i = 1; i <= 4; i++) await cache().append([a, b], [msg(`m${i}`)], 3);
    await cache().append([a], [msg("m5"), msg("m6", "u2", "bot")], 3);
    expect(contents(await cache().read([a, b]))).toEqual([
      ["m4", "m5", "m6"],
      ["m2", "m3", "m4"],
    ]);
    const [[, , last]] = (await cache().read([a])) as [CachedMessage[]];
    expect(last).toEqual({ role: "user", content: "m6", at: "2025-01-01T00:00:00.000Z", userId: "u2", authorId: "bot" });
    expect(await cache().read([])).toEqual([]);
    expect(await cache().read([{ cacheKey: cacheKey(d, "never:written"), epoch: "e1" }])).toEqual([[]]);
  });

  it("another epoch: a read sees nothing and drops the key; an append replaces the list", async () => {
    const d = ds();
    const k = cacheKey(d, "shortterm:user:u1:c1");
    await cache().append([{ cacheKey: k, epoch: "old" }], [msg("before the reset")], 5);
    expect(contents(await cache().read([{ cacheKey: k, epoch: "new" }]))).toEqual([[]]);
    // dropped: not back under its own epoch either
    expect(contents(await cache().read([{ cacheKey: k, epoch: "old" }]))).toEqual([[]]);
    await cache().append([{ cacheKey: k, epoch: "old" }], [msg("a")], 5);
    await cache().append([{ cacheKey: k, epoch: "new" }], [msg("b")], 5);
    expect(contents(await cache().read([{ cacheKey: k, epoch: "new" }]))).toEqual([["b"]]);
  });

  it("evict forgets the keys given, and only them", async () => {
    const d = ds();
    const [a, b] = [cacheKey(d, "k:a"), cacheKey(d, "k:b")].map((cacheKey) => ({ cacheKey, epoch: "e" })) as [{ cacheKey: string; epoch: string }, { cacheKey: string; epoch: string }];
    await cache().append([a, b], [msg("x")], 5);
    await cache().evict([a.cacheKey]);
    await cache().evict([]);
    expect(contents(await cache().read([a, b]))).toEqual([[], ["x"]]);
  });

  it("evictUser drops the keys it is told, and the user's messages (as user or author) from the dataset's other keys", async () => {
    const d = ds();
    const other = ds();
    const own = { cacheKey: cacheKey(d, "shortterm:user:u1:c1"), epoch: "e" };
    const server = { cacheKey: cacheKey(d, "shortterm:server:s1:c1"), epoch: "e" };
    const elsewhere = { cacheKey: cacheKey(other, "shortterm:user:u1:c1"), epoch: "e" };
    await cache().append([own, server, elsewhere], [msg("u1 says")], 10);
    await cache().append([server], [msg("u2 says", "u2"), msg("u2 quotes u1", "u2", "u1"), msg("u2 again", "u2")], 10);
    await cache().evictUser(d, "u1", ["shortterm:user:u1:c1"]);
    expect(contents(await cache().read([own, server, elsewhere]))).toEqual([[], ["u2 says", "u2 again"], ["u1 says"]]);
    // a dataset with nothing cached
    await cache().evictUser(ds(), "u1", ["shortterm:user:u1:c1"]);
  });

  it("datasets are apart: the same scope key in two datasets holds two lists", async () => {
    const [d1, d2] = [ds(), ds()];
    const key = "shortterm:user:u1:c1";
    await cache().append([{ cacheKey: cacheKey(d1, key), epoch: "e" }], [msg("in one")], 5);
    await cache().append([{ cacheKey: cacheKey(d2, key), epoch: "f" }], [msg("in two")], 5);
    await cache().evict([cacheKey(d1, key)]);
    expect(contents(await cache().read([{ cacheKey: cacheKey(d2, key), epoch: "f" }]))).toEqual([["in two"]]);
  });
}

describe("message cache contract [memory]", () => {
  const cache = memoryCache(16 * 1024 * 1024);
  contract(() => cache);
});

describeWithRedis("message cache contract [redis]", ({ url, prefix }) => {
  let redis: Redis | undefined;
  let cache: MessageCache | undefined;
  beforeAll(() => {
    redis = new Redis(url, { maxRetriesPerRequest: 1 });
    cache = redisCache(redis, { prefix });
  });
  afterAll(async () => {
    await redis?.quit();
  });
  contract(() => {
    if (!cache) throw new Error("no Redis client yet");
    return cache;
  });

  it("every key is under the prefix and expires (the TTL, refreshed by each append)", async () => {
    const d = randomUUID();
    const short = redisCache(redis as Redis, { prefix, ttlSeconds: 60 });
    await short.append([{ cacheKey: cacheKey(d, "shortterm:user:u1:c1"), epoch: "e" }], [msg("x")], 5);
    const keys = (await redis?.keys(`${prefix}:stm:${d}:*`)) ?? [];
    expect(keys.sort()).toEqual([`${prefix}:stm:${d}:epoch:shortterm:user:u1:c1`, `${prefix}:stm:${d}:index`, `${prefix}:stm:${d}:list:shortterm:user:u1:c1`]);
    for (const k of keys) {
      const ttl = (await redis?.pttl(k)) ?? -1;
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
  });

  it("a scope not appended to within the TTL is gone, from the index too", async () => {
    const d = randomUUID();
    const short = redisCache(redis as Redis, { prefix, ttlSeconds: 1 });
    const stale = { cacheKey: cacheKey(d, "k:stale"), epoch: "e" };
    await short.append([stale], [msg("x")], 5);
    await new Promise((r) => setTimeout(r, 1100));
    await short.append([{ cacheKey: cacheKey(d, "k:fresh"), epoch: "e" }], [msg("y")], 5);
    expect(contents(await short.read([stale]))).toEqual([[]]);
    expect(await redis?.zrange(`${prefix}:stm:${d}:index`, 0, -1)).toEqual(["k:fresh"]);
  });
});

describe("message cache on a Redis that is down", () => {
  let redis: Redis | undefined;
  beforeAll(() => {
    redis = new Redis(DOWN_REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    redis.on("error", () => {});
  });
  afterAll(() => redis?.disconnect());

  it("every call fails at once as unavailable, naming the cache, with no address", { timeout: 5000 }, async () => {
    const cache = redisCache(redis as Redis, { prefix: "gb-down" });
    const entry = { cacheKey: cacheKey(randomUUID(), "k"), epoch: "e" };
    for (const call of [cache.append([entry], [msg("x")], 5), cache.read([entry]), cache.evict([entry.cacheKey]), cache.evictUser("d", "u", ["k"])]) {
      const e: unknown = await call.then(() => null, (err: unknown) => err);
      expect(errorKind(e)).toBe("unavailable");
      expect((e as Error).message).toBe("the short-term memory cache (Redis) is unavailable: no connection");
    }
  });
});
