import type { MessageCache } from "../stm/cache";
import { callPrimary } from "./ipc";

/*
 * What `npm start`'s workers keep in their primary process (ipc.ts): the stores behind the same
 * interfaces as in one process, each call one IPC round trip.
 */

/** Short-term memory's messages, held by the primary (one LRU of GB_STM_CACHE_MB for all workers). */
export function primaryMessageCache(): MessageCache {
  return {
    append: (entries, messages, max) => callPrimary("stm.append", entries, messages, max),
    read: (entries) => callPrimary("stm.read", entries),
    evict: (keys) => callPrimary("stm.evict", keys),
    evictUser: (datasetId, userId, userKeys) => callPrimary("stm.evictUser", datasetId, userId, userKeys),
  };
}

/** A fixed window's verdict: better-auth's custom limit storage answer. */
export interface LimitVerdict {
  allowed: boolean;
  retryAfter: number | null;
}

/** The sign-in limit's counters (better-auth's customStorage), held by the primary. */
export function primaryLimitStorage(): { consume(key: string, rule: { window: number; max: number }): Promise<LimitVerdict> } {
  return { consume: (key, rule) => callPrimary("auth.consume", key, { window: rule.window, max: rule.max }) };
}
