import { LRUCache } from "lru-cache";

/*
 * The raw messages of short-term memory live only here (the seed's hybrid persistence): the last
 * GB_STM_MAX_MESSAGES_PER_CHANNEL of each scope key, in this process. A restart starts empty and
 * the durable rows (summary, categories, cadence) come back with empty message lists.
 *
 * Each entry carries the `epoch` of the durable row it belongs to (the row's created_at): a row
 * deleted (a channel reset, a user forgotten) and made again has a new epoch, so messages cached
 * before the reset, in this process or another, are never shown with it.
 */

export interface CachedMessage {
  role: "user" | "assistant";
  content: string;
  authorId?: string;
  /** ISO time */
  at: string;
  /** the scope's user whose turn captured it */
  userId: string;
}

export interface MessageCache {
  /** appends to each key's list (of that epoch; another epoch's list is replaced), keeping the last `max` */
  append(entries: { cacheKey: string; epoch: string }[], messages: CachedMessage[], max: number): Promise<void>;
  /** the messages of each key, of that epoch only; a key of another epoch reads as none (and is dropped) */
  read(entries: { cacheKey: string; epoch: string }[]): Promise<CachedMessage[][]>;
  /** forgets keys at once */
  evict(cacheKeys: string[]): Promise<void>;
  /** forgets the dataset's keys named (the user's keys), and the user's messages in every other key of the dataset */
  evictUser(datasetId: string, userId: string, userKeys: readonly string[]): Promise<void>;
}

/** The cache key of a scope key in a dataset. */
export const cacheKey = (datasetId: string, key: string) => `${datasetId} ${key}`;

interface Entry {
  epoch: string;
  messages: CachedMessage[];
}

const sizeOf = (e: Entry) => 64 + e.messages.reduce((n, m) => n + 2 * (m.content.length + (m.authorId?.length ?? 0) + m.userId.length) + 96, 0);

/** The cache of one process: an LRU bounded by bytes (GB_STM_CACHE_MB), the least recently used scopes dropped first. */
export function memoryCache(maxBytes: number): MessageCache {
  const lru = new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: (e) => Math.max(1, sizeOf(e)) });
  return {
    async append(entries, messages, max) {
      for (const { cacheKey: k, epoch } of entries) {
        const old = lru.get(k);
        const kept = old && old.epoch === epoch ? old.messages : [];
        lru.set(k, { epoch, messages: [...kept, ...messages].slice(-max) });
      }
    },
    async read(entries) {
      return entries.map(({ cacheKey: k, epoch }) => {
        const e = lru.get(k);
        if (!e) return [];
        if (e.epoch !== epoch) {
          lru.delete(k);
          return [];
        }
        return e.messages;
      });
    },
    async evict(keys) {
      for (const k of keys) lru.delete(k);
    },
    async evictUser(datasetId, userId, userKeys) {
      const prefix = `${datasetId} `;
      const gone = new Set(userKeys);
      for (const [k, e] of [...lru.entries()]) {
        if (!k.startsWith(prefix)) continue;
        if (gone.has(k.slice(prefix.length))) lru.delete(k);
        else if (e.messages.some((m) => m.userId === userId || m.authorId === userId)) {
          lru.set(k, { epoch: e.epoch, messages: e.messages.filter((m) => m.userId !== userId && m.authorId !== userId) });
        }
      }
    },
  };
}
