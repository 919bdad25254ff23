import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, inject } from "vitest";

/*
 * Tests of what lives in Redis (GB_REDIS_URL) run on the Redis of TEST_REDIS_URL, each block
 * under a key prefix of its own (GB_REDIS_PREFIX), so that files and runs sharing the Redis never
 * see each other's keys; the block's keys are deleted after it.
 */

/** A Redis nobody answers on: connections are refused at once. */
export const DOWN_REDIS_URL = "redis://127.0.0.1:1";

/**
 * Declares `fn`'s tests with a Redis and a key prefix of their own. Skipped, with the reason
 * printed, only when TEST_REDIS_URL is unset.
 */
export function describeWithRedis(name: string, fn: (redis: { url: string; prefix: string }) => void): void {
  const url = inject("redisUrl");
  if (!url) console.log(`${name}: skipped, TEST_REDIS_URL is unset`);
  describe.skipIf(!url)(name, () => {
    const prefix = `gb-test-${randomUUID().slice(0, 8)}`;
    afterAll(async () => {
      if (url) await deleteKeys(url, prefix);
    });
    fn({ url: url ?? "", prefix });
  });
}

/** Deletes the keys under `prefix` (a SCAN: fine for a test's own few keys, never the app's way). */
async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 500 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
}
