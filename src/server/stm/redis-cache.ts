import type { Redis } from "ioredis";
import { redisUnavailable } from "../errors";
import type { CachedMessage, MessageCache } from "./cache";

/*
 * The message cache in Redis (GB_REDIS_URL), shared by every process of the install, with the
 * semantics of memoryCache. Per dataset D and scope key S, under the prefix P (GB_REDIS_PREFIX):
 *   P:stm:D:epoch:S   the epoch of the durable row the messages belong to
 *   P:stm:D:list:S    the last messages (JSON, oldest first)
 *   P:stm:D:index     the dataset's keys S, scored by their last append (evictUser without a SCAN)
 * Each append refreshes the keys' TTL (30 days by default) and drops index entries older than
 * it, so an abandoned scope goes away on its own. The epoch checks run in Lua scripts: one
 * round trip per call (evictUser: two), and no other process's call between the check and the write.
 * A failed call is an UnavailableError (SERVICE_UNAVAILABLE): these are messages of a cache,
 * the durable rows are written before and stay.
 */

/** how long a scope's messages stay after its last append */
export const STM_REDIS_TTL_SECONDS = 30 * 24 * 3600;

const WHAT = "the short-term memory cache (Redis)";

// KEYS: index, epoch, list per entry. ARGV: max, ttl ms, entries, (epoch, member) per entry, messages.
const APPEND = `
local max, ttl, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, n do
  local ix, ek, lk = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local epoch = ARGV[2 + 2 * i]
  if redis.call('GET', ek) ~= epoch then
    redis.call('DEL', lk)
    redis.call('SET', ek, epoch)
  end
  for j = 4 + 2 * n, #ARGV do redis.call('RPUSH', lk, ARGV[j]) end
  redis.call('LTRIM', lk, -max, -1)
  redis.call('PEXPIRE', ek, ttl)
  redis.call('PEXPIRE', lk, ttl)
  redis.call('ZADD', ix, now, ARGV[3 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', ix, '-inf', '(' .. (now - ttl))
  redis.call('PEXPIRE', ix, ttl)
end`;

// KEYS: index, epoch, list per entry. ARGV: (epoch, member) per entry. Another epoch's key is dropped.
const READ = `
local out = {}
for i = 1, #KEYS / 3 do
  local ix, ek, lk = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local stored = redis.call('GET', ek)
  if stored and stored ~= ARGV[2 * i - 1] then
    redis.call('DEL', ek, lk)
    redis.call('ZREM', ix, ARGV[2 * i])
    stored = false
  end
  out[i] = stored and redis.call('LRANGE', lk, 0, -1) or {}
end
return out`;

// KEYS: index, (epoch, list) per key to drop, then the lists to filter. ARGV: user, keys to drop, their members.
const EVICT_USER = `
local uid, gone = ARGV[1], tonumber(ARGV[2])
for i = 1, gone do
  redis.call('DEL', KEYS[2 * i], KEYS[2 * i + 1])
  redis.call('ZREM', KEYS[1], ARGV[2 + i])
end
for k = 2 + 2 * gone, #KEYS do
  local lk = KEYS[k]
  local kept, changed = {}, false
  for _, raw in ipairs(redis.call('LRANGE', lk, 0, -1)) do
    local m = cjson.decode(raw)
    if m.userId == uid or m.authorId == uid then changed = true else kept[#kept + 1] = raw end
  end
  if changed then
    local ttl = redis.call('PTTL', lk)
    redis.call('DEL', lk)
    for _, raw in ipairs(kept) do redis.call('RPUSH', lk, raw) end
    if #kept > 0 and ttl > 0 then redis.call('PEXPIRE', lk, ttl) end
  end
end`;

interface Scripts {
  gbStmAppend(...args: (string | number)[]): Promise<unknown>;
  gbStmRead(...args: (string | number)[]): Promise<string[][]>;
  gbStmEvictUser(...args: (string | number)[]): Promise<unknown>;
}

/** The dataset and scope key of a cache key (cache.ts `cacheKey`: "<datasetId> <key>"). */
function split(cacheKey: string): { datasetId: string; key: string } {
  const at = cacheKey.indexOf(" ");
  return at < 0 ? { datasetId: "", key: cacheKey } : { datasetId: cacheKey.slice(0, at), key: cacheKey.slice(at + 1) };
}

/** The message cache on a Redis client: `prefix` is GB_REDIS_PREFIX, `ttlSeconds` the scopes' lifetime after their last append. */
export function redisCache(redis: Redis, opts: { prefix?: string; ttlSeconds?: number } = {}): MessageCache {
  const prefix = `${opts.prefix ?? "gb"}:stm:`;
  const ttlMs = (opts.ttlSeconds ?? STM_REDIS_TTL_SECONDS) * 1000;
  const index = (datasetId: string) => `${prefix}${datasetId}:index`;
  const epochKey = (datasetId: string, key: string) => `${prefix}${datasetId}:epoch:${key}`;
  const listKey = (datasetId: string, key: string) => `${prefix}${datasetId}:list:${key}`;
  const keysOf = (cacheKey: string) => {
    const { datasetId, key } = split(cacheKey);
    return { member: key, keys: [index(datasetId), epochKey(datasetId, key), listKey(datasetId, key)] };
  };
  redis.defineCommand("gbStmAppend", { lua: APPEND });
  redis.defineCommand("gbStmRead", { lua: READ });
  redis.defineCommand("gbStmEvictUser", { lua: EVICT_USER });
  const scripts = redis as unknown as Scripts;
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      throw redisUnavailable(WHAT, e);
    }
  };

  return {
    append: (entries, messages, max) =>
      call(async () => {
        if (entries.length === 0) return;
        const of = entries.map((e) => ({ ...keysOf(e.cacheKey), epoch: e.epoch }));
        const keys = of.flatMap((o) => o.keys);
        await scripts.gbStmAppend(keys.length, ...keys, max, ttlMs, of.length, ...of.flatMap((o) => [o.epoch, o.member]), ...messages.map((m) => JSON.stringify(m)));
      }),
    read: (entries) =>
      call(async () => {
        if (entries.length === 0) return [];
        const of = entries.map((e) => ({ ...keysOf(e.cacheKey), epoch: e.epoch }));
        const keys = of.flatMap((o) => o.keys);
        const lists = await scripts.gbStmRead(keys.length, ...keys, ...of.flatMap((o) => [o.epoch, o.member]));
        return lists.map((list) => list.map((raw) => JSON.parse(raw) as CachedMessage));
      }),
    evict: (cacheKeys) =>
      call(async () => {
        if (cacheKeys.length === 0) return;
        const multi = redis.multi();
        for (const k of cacheKeys) {
          const { member, keys } = keysOf(k);
          multi.del(keys[1]!, keys[2]!).zrem(keys[0]!, member);
        }
        const failed = (await multi.exec())?.find(([err]) => err);
        if (failed) throw failed[0];
      }),
    // two round trips: the dataset's keys, then one script (`keyOfUser` is a function, not Lua)
    evictUser: (datasetId, userId, userKeys) =>
      call(async () => {
        const members = await redis.zrange(index(datasetId), 0, -1);
        if (members.length === 0) return;
        const gone: string[] = [];
        const others: string[] = [];
        const named = new Set(userKeys);
        for (const m of members) (named.has(m) ? gone : others).push(m);
        const keys = [index(datasetId), ...gone.flatMap((m) => [epochKey(datasetId, m), listKey(datasetId, m)]), ...others.map((m) => listKey(datasetId, m))];
        await scripts.gbStmEvictUser(keys.length, ...keys, userId, gone.length, ...gone);
      }),
  };
}
