import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { describeEachDriver } from "../../test/db";
import { LOCAL_CALLER } from "../auth/caller";
import { callerForKey, createApiKey, revokeApiKey } from "../auth/keys";
import { createDataset, deleteDataset, resolveDataset } from "../datasets/datasets";
import { NotFoundError } from "../errors";
import { type Database, openDatabase } from "./client";
import { LookupCache, type Lookups, startLookups } from "./lookups";
import { createScratchDatabase } from "./scratch";

/*
 * The per-process cache of API keys and datasets (#16): a change is honoured at once in the
 * process that made it, through NOTIFY in the others (Postgres), and within the TTL whatever
 * happens. The raw UPDATEs below change a row as a process would that sends no notification,
 * which shows what the cache still holds.
 */

const newKey = (db: Database["db"], name: string) => createApiKey({ db, caller: LOCAL_CALLER, input: { name, role: "member" } });
const dsName = () => `lk-${Math.random().toString(36).slice(2, 10)}`;
const gone = (p: Promise<unknown>) => p.then(() => false, (e: unknown) => e instanceof NotFoundError);

describe("LookupCache", () => {
  const caller = { kind: "key" as const, id: "k1", label: "k", teamId: "t", role: "member" as const, datasetIds: null };

  it("loads once, then answers from memory until the TTL ends", async () => {
    const cache = new LookupCache(150);
    let loads = 0;
    const load = async () => (loads++, caller);
    expect(await cache.key("h", load)).toBe(caller);
    expect(await cache.key("h", load)).toBe(caller);
    expect(loads).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    await cache.key("h", load);
    expect(loads).toBe(2);
  });

  it("does not cache a miss, and forgets by id", async () => {
    const cache = new LookupCache();
    let loads = 0;
    expect(await cache.key("h", async () => (loads++, null))).toBeNull();
    expect(await cache.key("h", async () => (loads++, caller))).toBe(caller);
    expect(loads).toBe(2);
    cache.forget({ kind: "dataset", id: "k1" }); // another kind's id: the key stays
    expect(await cache.key("h", async () => (loads++, null))).toBe(caller);
    cache.forget({ kind: "key", id: "k1" });
    expect(await cache.key("h", async () => (loads++, null))).toBeNull();
    expect(loads).toBe(3);
  });

  it("does not keep what a lookup read before a change it returned after", async () => {
    const cache = new LookupCache();
    let release!: () => void;
    const slow = cache.key("h", () => new Promise((r) => (release = () => r(caller))));
    cache.forget({ kind: "key", id: "k1" }); // revoked while the read was on its way
    release();
    expect(await slow).toBe(caller); // that call saw the row as it was
    let loads = 0;
    expect(await cache.key("h", async () => (loads++, null))).toBeNull(); // the next reads again
    expect(loads).toBe(1);
  });
});

describeEachDriver("lookup cache", (ctx) => {
  it("an API key: cached after its first use; keys.revoke is honoured at once", async () => {
    const db = ctx().app.database.db;
    const { key, secret } = await newKey(db, "cached");
    expect((await callerForKey(db, secret))?.id).toBe(key.id);
    // revoked underneath, as a process that sends no notification would: the cache still has it
    await db.execute(sql`UPDATE gb_api_keys SET revoked_at = now() WHERE id = ${key.id}`);
    expect((await callerForKey(db, secret))?.id).toBe(key.id);
    // through revokeApiKey: forgotten in this process at once
    await revokeApiKey({ db, caller: LOCAL_CALLER, id: key.id });
    expect(await callerForKey(db, secret)).toBeNull();
    const other = await newKey(db, "revoked at once");
    expect((await callerForKey(db, other.secret))?.id).toBe(other.key.id);
    await revokeApiKey({ db, caller: LOCAL_CALLER, id: other.key.id });
    expect(await callerForKey(db, other.secret)).toBeNull();
  });

  it("a dataset: cached by name; a deletion is honoured at once, and the name made again is the new one", async () => {
    const db = ctx().app.database.db;
    const name = dsName();
    const first = await createDataset({ db, caller: LOCAL_CALLER, input: { name } });
    expect((await resolveDataset(db, name, LOCAL_CALLER)).id).toBe(first.id);
    await deleteDataset({ db, caller: LOCAL_CALLER, input: { name, confirm: name } });
    expect(await gone(resolveDataset(db, name, LOCAL_CALLER))).toBe(true);
    const again = await createDataset({ db, caller: LOCAL_CALLER, input: { name } });
    expect(again.id).not.toBe(first.id);
    expect((await resolveDataset(db, name, LOCAL_CALLER)).id).toBe(again.id);
    // a dataset's scope is checked on every call, cached or not
    expect(await gone(resolveDataset(db, name, { teamId: LOCAL_CALLER.teamId, datasetIds: [first.id] }))).toBe(true);
  });
});

const url = inject("pgUrl");
const template = inject("pgTemplate");

if (!url || !template) {
  describe("lookup cache across processes", () => {
    it.skip("needs TEST_DATABASE_URL (a Postgres server)", () => {});
  });
  console.log("lookup cache across processes: not run, TEST_DATABASE_URL is unset");
} else {
  describe("lookup cache across processes [postgres]", () => {
    // two processes' databases on one server; the other's entries would live a minute, so only
    // the notification can make it forget within the test
    let here: Database;
    let there: Database;
    let lookups: Lookups[] = [];
    let drop: () => Promise<void>;
    beforeAll(async () => {
      const scratch = await createScratchDatabase(url, "gb_lk", { template });
      drop = scratch.drop;
      here = await openDatabase({ driver: "postgres", url: scratch.url, max: 2 });
      there = await openDatabase({ driver: "postgres", url: scratch.url, max: 2 });
      lookups = [await startLookups(here), await startLookups(there, { ttlMs: 60_000 })];
    });
    afterAll(async () => {
      for (const l of lookups) await l.stop();
      await here?.close();
      await there?.close();
      await drop?.();
    });

    /** waits up to 4 s for `check` to hold (a notification takes milliseconds) */
    async function soon(check: () => Promise<boolean>): Promise<boolean> {
      for (const end = Date.now() + 4000; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) if (await check()) return true;
      return false;
    }

    it("a key revoked in one process is refused by the other within moments", async () => {
      const { key, secret } = await newKey(here.db, "two processes");
      expect((await callerForKey(there.db, secret))?.id).toBe(key.id);
      await revokeApiKey({ db: here.db, caller: LOCAL_CALLER, id: key.id });
      expect(await callerForKey(here.db, secret)).toBeNull();
      expect(await soon(async () => (await callerForKey(there.db, secret)) === null)).toBe(true);
    });

    it("a dataset deleted in one process is not found by the other within moments", async () => {
      const name = dsName();
      await createDataset({ db: here.db, caller: LOCAL_CALLER, input: { name } });
      await resolveDataset(there.db, name, LOCAL_CALLER);
      await deleteDataset({ db: here.db, caller: LOCAL_CALLER, input: { name, confirm: name } });
      expect(await soon(() => gone(resolveDataset(there.db, name, LOCAL_CALLER)))).toBe(true);
    });

    it("a listener that lost its connection forgets everything when it is back (what it missed is unknown)", async () => {
      const { key, secret } = await newKey(here.db, "missed");
      expect((await callerForKey(there.db, secret))?.id).toBe(key.id);
      // revoked with no notification, then the other's listening connection is cut
      await here.db.execute(sql`UPDATE gb_api_keys SET revoked_at = now() WHERE id = ${key.id}`);
      expect((await callerForKey(there.db, secret))?.id).toBe(key.id);
      await here.db.execute(
        sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'listen%' AND pid <> pg_backend_pid()`,
      );
      expect(await soon(async () => (await callerForKey(there.db, secret)) === null)).toBe(true);
    });
  });
}
