import { sql } from "drizzle-orm";
import { LRUCache } from "lru-cache";
import type { Caller } from "../auth/caller";
import type { Dataset } from "../datasets/datasets";
import { logError } from "../errors";
import type { Database, Db } from "./client";

/*
 * The lookups every call makes, cached per process (#16: few round trips): an API key's caller by
 * the key's hash, and a dataset by its team and name. Each entry is trusted for at most
 * LOOKUP_TTL_MS. A key revoked or a dataset deleted is forgotten:
 *  - at once in the process that made the change (forgetHere, after its transaction commits);
 *  - in every other process as the change commits: the transaction sends a NOTIFY on
 *    LOOKUPS_CHANNEL (announce), which each process's database listens to (Postgres; on PGlite
 *    one process owns the database);
 *  - and if a process missed the notification (its listening connection was down), its entry
 *    ends with its TTL: a revoked key is honoured within 5 s everywhere, whatever happens. A
 *    reconnected listener forgets everything.
 */

export const LOOKUPS_CHANNEL = "gb_lookups";
/** the longest a cached lookup is trusted */
export const LOOKUP_TTL_MS = 5_000;
const MOST_ENTRIES = 10_000;

/** What changed: a key (revoked) or a dataset (deleted), by id. */
export interface LookupChange {
  kind: "key" | "dataset";
  id: string;
}

interface Identified {
  id: string | null;
}

export class LookupCache {
  private readonly keys: LRUCache<string, Caller>;
  private readonly datasets: LRUCache<string, Dataset>;
  /**
   * Counts what was forgotten: a lookup that read the database before a change and returns after
   * it must not cache what it read (it may be the row as it was before the change).
   */
  private generation = 0;

  constructor(ttlMs = LOOKUP_TTL_MS) {
    this.keys = new LRUCache({ max: MOST_ENTRIES, ttl: ttlMs });
    this.datasets = new LRUCache({ max: MOST_ENTRIES, ttl: ttlMs });
  }

  /** An API key's caller by the key's hash: cached, else `load`ed (null, not cached: no such key). */
  key(hash: string, load: () => Promise<Caller | null>): Promise<Caller | null> {
    return this.cached(this.keys, hash, load);
  }

  /** A team's dataset by name: cached, else `load`ed. */
  dataset(teamId: string, name: string, load: () => Promise<Dataset | null>): Promise<Dataset | null> {
    return this.cached(this.datasets, `${teamId}\u0000${name}`, load);
  }

  forget(change: LookupChange): void {
    this.generation++;
    if (change.kind === "key") drop(this.keys, change.id);
    else drop(this.datasets, change.id);
  }

  clear(): void {
    this.generation++;
    this.keys.clear();
    this.datasets.clear();
  }

  private async cached<T extends Identified>(cache: LRUCache<string, T>, key: string, load: () => Promise<T | null>): Promise<T | null> {
    const hit = cache.get(key);
    if (hit) return hit;
    const generation = this.generation;
    const found = await load();
    if (found && generation === this.generation) cache.set(key, found);
    return found;
  }
}

function drop<T extends Identified>(cache: LRUCache<string, T>, id: string): void {
  const gone = [...cache.entries()].filter(([, v]) => v.id === id).map(([k]) => k);
  for (const k of gone) cache.delete(k);
}

// On globalThis: the built app bundles server code more than once, and a revocation made through
// one copy of this module must reach the caches the other copies made.
const registry = ((globalThis as unknown as Record<symbol, Map<Db, LookupCache>>)[Symbol.for("gligabao.lookups")] ??= new Map());

/** The lookup cache of a database opened by an app (createApp); none for one opened by a script. */
export function lookupsOf(db: Db): LookupCache | undefined {
  return registry.get(db);
}

export interface Lookups {
  readonly cache: LookupCache;
  stop(): Promise<void>;
}

/** Starts the lookup cache of an app's database, listening for the other processes' changes (Postgres). */
export async function startLookups(database: Database, opts: { ttlMs?: number } = {}): Promise<Lookups> {
  const cache = new LookupCache(opts.ttlMs);
  registry.set(database.db, cache);
  const onMessage = (payload: string) => {
    const [kind, id] = payload.split(":");
    if ((kind === "key" || kind === "dataset") && id) cache.forget({ kind, id });
  };
  // a listener that cannot start leaves the TTL as the only bound: logged, the app runs on
  const listening = await database.listen(LOOKUPS_CHANNEL, onMessage, () => cache.clear()).catch((e: unknown) => {
    logError(`could not listen on ${LOOKUPS_CHANNEL}: keys revoked and datasets deleted by other processes are honoured here within ${LOOKUP_TTL_MS / 1000} s, not at once`, e);
    return null;
  });
  return {
    cache,
    async stop() {
      if (registry.get(database.db) === cache) registry.delete(database.db);
      await listening?.stop();
    },
  };
}

/** In the transaction that revokes or deletes: every other process forgets it as the transaction commits. */
export async function announce(tx: Pick<Db, "execute">, change: LookupChange): Promise<void> {
  await tx.execute(sql`SELECT pg_notify(${LOOKUPS_CHANNEL}, ${`${change.kind}:${change.id}`})`);
}

/**
 * After the change committed: this process's cache of that database forgets it at once (the
 * others hear of it through announce's notification).
 */
export function forgetHere(db: Db, change: LookupChange): void {
  registry.get(db)?.forget(change);
}
