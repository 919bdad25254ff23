import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { Env } from "../../env";
import { RateLimitedError } from "../errors";
import type { Caller } from "./caller";

/*
 * Calls per minute per API key for remember and query (GB_RATE_LIMIT_*), counted in this process
 * with rate-limiter-flexible's in-memory limiter. People in the admin pages are not limited.
 * Several app processes each count on their own (rate-limiter-flexible has Postgres and Redis
 * stores for a shared count when that matters).
 */

export type LimitedCall = "remember" | "query";

export interface RateLimits {
  take(call: LimitedCall, caller: Caller): Promise<void>;
}

export function createRateLimits(env: Env): RateLimits {
  const perMinute: Record<LimitedCall, number> = { remember: env.GB_RATE_LIMIT_REMEMBER, query: env.GB_RATE_LIMIT_QUERY };
  const limiters = new Map<LimitedCall, RateLimiterMemory>();
  for (const call of ["remember", "query"] as const) {
    if (perMinute[call] > 0) limiters.set(call, new RateLimiterMemory({ points: perMinute[call], duration: 60, keyPrefix: call }));
  }
  return {
    async take(call, caller) {
      const limiter = limiters.get(call);
      if (!limiter || caller.kind !== "key" || !caller.id) return;
      try {
        await limiter.consume(caller.id);
      } catch (e) {
        if (e instanceof RateLimiterRes) throw new RateLimitedError(e.msBeforeNext, `${call} (${perMinute[call]} per minute per key)`);
        throw e;
      }
    },
  };
}
