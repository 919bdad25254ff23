import type { Redis } from "ioredis";
import { type RateLimiterAbstract, RateLimiterCluster, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { inCluster } from "../cluster/ipc";
import type { Env } from "../../env";
import { RateLimitedError, redisUnavailable, UnavailableError } from "../errors";
import type { Caller } from "./caller";

/*
 * Calls per minute per API key for remember and query (GB_RATE_LIMIT_*), counted with
 * rate-limiter-flexible: in this process, or with GB_REDIS_URL in Redis (keys
 * <GB_REDIS_PREFIX>:rl:<call>:<key id>), so that all the processes behind a load balancer count
 * together; without Redis, `npm start`'s workers (GB_WORKERS) count in their primary process
 * (rate-limiter-flexible's cluster limiter, over IPC; src/server/cluster/). People in the admin pages are not limited. A Redis that does not answer fails the
 * call (SERVICE_UNAVAILABLE) rather than letting it through uncounted.
 */

export type LimitedCall = "remember" | "query";

export interface RateLimits {
  take(call: LimitedCall, caller: Caller): Promise<void>;
}

/** The limits of the environment, counted in `redis` when given (the process's client, app.ts). */
export function createRateLimits(env: Env, redis?: Redis | null): RateLimits {
  const perMinute: Record<LimitedCall, number> = { remember: env.GB_RATE_LIMIT_REMEMBER, query: env.GB_RATE_LIMIT_QUERY };
  const limiters = new Map<LimitedCall, RateLimiterAbstract>();
  const cluster = !redis && inCluster();
  for (const call of ["remember", "query"] as const) {
    if (perMinute[call] <= 0) continue;
    const opts = { points: perMinute[call], duration: 60 };
    limiters.set(
      call,
      redis
        ? new RateLimiterRedis({ ...opts, storeClient: redis, keyPrefix: `${env.GB_REDIS_PREFIX}:rl:${call}`, rejectIfRedisNotReady: true })
        : cluster
          ? new RateLimiterCluster({ ...opts, keyPrefix: `gb-${call}`, timeoutMs: 5000 })
          : new RateLimiterMemory({ ...opts, keyPrefix: call }),
    );
  }
  return {
    async take(call, caller) {
      const limiter = limiters.get(call);
      if (!limiter || caller.kind !== "key" || !caller.id) return;
      try {
        await limiter.consume(caller.id);
      } catch (e) {
        if (e instanceof RateLimiterRes) throw new RateLimitedError(e.msBeforeNext, `${call} (${perMinute[call]} per minute per key)`);
        if (redis) throw redisUnavailable("the rate-limit store (Redis)", e);
        if (cluster) throw new UnavailableError("the rate-limit store (the app's primary process)", e instanceof Error ? e.message : String(e), { cause: e });
        throw e;
      }
    },
  };
}
