import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { callerFor, rejection } from "../../test/callers";
import { describeEachDriver, freshDataset, testEnv } from "../../test/db";
import { describeWithRedis } from "../../test/redis";
import { createApp } from "../app";
import { queryRows } from "../db/rows";
import { purgeSubject } from "../subjects/purge";
import { scopeKeys } from "./keys";
import type { Scope } from "./schemas";

const dm: Scope = { userId: "u1", channelId: "dm1" };
const guild: Scope = { userId: "u1", channelId: "general", serverId: "s1" };
const say = (content: string, role: "user" | "assistant" = "user") => ({ role, content });

it("a scope's keys: a DM has only its user key, a server channel also the server's; a persona ends each", () => {
  expect(scopeKeys(dm).map((k) => k.key)).toEqual(["shortterm:user:u1:dm1"]);
  expect(scopeKeys({ ...guild, personaId: "p" }).map((k) => k.key)).toEqual(["shortterm:user:u1:general:p", "shortterm:server:s1:general:p"]);
});

/** GB_REDIS_URL and its prefix when the suite runs with the Redis message cache */
type Cache = Record<string, string>;
const STM_ENV = { GB_STM_MAX_MESSAGES_PER_CHANNEL: "3", GB_STM_MAX_SUMMARY_CHARS: "500" };

/** Every point, on both drivers; with the in-process message cache, and with Redis's when TEST_REDIS_URL is set. */
function suite(name: string, cache: () => Cache) {
  describeEachDriver(
    name,
    (ctx) => {
      const redis = () => "GB_REDIS_URL" in cache();
      const api = () => callerFor(ctx().app);
      const rowsOf = async (datasetId: string) =>
        queryRows<{ key: string; summary: string | null; version: number }>(
          ctx().app.database.db,
          sql`SELECT key, summary, version FROM short_term_memories WHERE dataset_id = ${datasetId} ORDER BY key`,
        );
      const versionsOf = async (datasetId: string) =>
        queryRows<{ key: string; version: number; summary: string | null; turn_id: string }>(
          ctx().app.database.db,
          sql`SELECT key, version, summary, turn_id FROM short_term_memory_versions WHERE dataset_id = ${datasetId} ORDER BY key, version`,
        );

      it("capture keeps the last messages of every key of the scope, makes the identity rows, and counts turns", async () => {
        const ds = await freshDataset(ctx().app, "stm");
        for (let i = 1; i <= 5; i++) await api().stm.capture({ dataset: ds.name, scope: guild, messages: [say(`message ${i}`)] });
        const rows = await rowsOf(ds.id);
        expect(rows.map((r) => r.key)).toEqual(["shortterm:server:s1:general", "shortterm:user:u1:general"]);
        const c = await api().stm.context({ dataset: ds.name, scope: guild, mode: "raw" });
        // GB_STM_MAX_MESSAGES_PER_CHANNEL=3 in this suite
        expect(c.sameChannel?.messages.map((m) => m.content)).toEqual(["message 3", "message 4", "message 5"]);
        expect(c.cadence).toMatchObject({ turnsSinceUpgrade: 5, lastUpgradeAt: null, version: 0 });
        expect(c.text).toContain("message 5");
        expect(c.text).not.toContain("message 2");
        // a DM: the user key only
        await api().stm.capture({ dataset: ds.name, scope: dm, messages: [say("hi")] });
        expect((await rowsOf(ds.id)).map((r) => r.key)).toContain("shortterm:user:u1:dm1");
        expect((await rowsOf(ds.id)).filter((r) => r.key.includes("dm1"))).toHaveLength(1);
      });

      it("an upgrade goes to every key durably, once per turn, keeps each version, and capture never changes it", async () => {
        const ds = await freshDataset(ctx().app, "stm");
        await api().stm.capture({ dataset: ds.name, scope: guild, messages: [say("we plan a trip to Porto")] });
        const first = await api().stm.upgrade({ dataset: ds.name, scope: guild, turnId: "t1", summary: "Planning a trip to Porto." });
        expect(first).toMatchObject({ applied: true, version: 1, summary: "Planning a trip to Porto." });
        const again = await api().stm.upgrade({ dataset: ds.name, scope: guild, turnId: "t1", summary: "something else" });
        expect(again).toEqual({ applied: false, reason: "already_upgraded_this_turn" });
        await api().stm.capture({ dataset: ds.name, scope: guild, messages: [say("by train")] });
        expect((await rowsOf(ds.id)).map((r) => [r.summary, r.version])).toEqual([
          ["Planning a trip to Porto.", 1],
          ["Planning a trip to Porto.", 1],
        ]);
        const second = await api().stm.upgrade({ dataset: ds.name, scope: guild, turnId: "t2", categories: { transport: "train", city: "Porto" } });
        expect(second).toMatchObject({ applied: true, version: 2, summary: "Planning a trip to Porto.", categories: { transport: "train", city: "Porto" } });
        // "" removes a category
        await api().stm.upgrade({ dataset: ds.name, scope: guild, turnId: "t3", categories: { city: "" } });
        const v = await versionsOf(ds.id);
        expect(v.filter((r) => r.key.startsWith("shortterm:user")).map((r) => [r.version, r.turn_id])).toEqual([
          [1, "t1"],
          [2, "t2"],
          [3, "t3"],
        ]);
        const c = await api().stm.context({ dataset: ds.name, scope: guild });
        expect(c.sameChannel?.categories).toEqual({ transport: "train" });
        expect(c.cadence).toMatchObject({ turnsSinceUpgrade: 0, lastUpgradeTurnId: "t3", version: 3 });
        expect(c.cadence.lastUpgradeAt).toBeInstanceOf(Date);
        // summary priority: the distilled content, not the raw messages
        expect(c.text).toContain("Summary: Planning a trip to Porto.");
        expect(c.text).toContain("- transport: train");
        expect(c.text).not.toContain("by train");
      });

      it("two upgrades of one turn at once: one applies", async () => {
        const ds = await freshDataset(ctx().app, "stm");
        const results = await Promise.all(
          [1, 2, 3].map((i) => api().stm.upgrade({ dataset: ds.name, scope: guild, turnId: "same", summary: `version ${i}` })),
        );
        expect(results.filter((r) => r.applied)).toHaveLength(1);
        expect((await rowsOf(ds.id)).map((r) => r.version)).toEqual([1, 1]);
      });

      it("limits: a long summary, too many categories, bad tool arguments are BAD_REQUEST naming the field, and change nothing", async () => {
        const ds = await freshDataset(ctx().app, "stm");
        await api().stm.upgrade({ dataset: ds.name, scope: dm, turnId: "t0", summary: "kept" });
        const long = await rejection(api().stm.upgrade({ dataset: ds.name, scope: dm, turnId: "t1", summary: "x".repeat(501) }));
        expect(long).toMatchObject({ code: "BAD_REQUEST", field: "summary" });
        const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"]));
        expect(await rejection(api().stm.upgrade({ dataset: ds.name, scope: dm, turnId: "t1", categories: many }))).toMatchObject({ code: "BAD_REQUEST", field: "categories" });
        // 20 now and 13 more would be 33
        await api().stm.upgrade({ dataset: ds.name, scope: dm, turnId: "t2", categories: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`a${i}`, "v"])) });
        const more = Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`b${i}`, "v"]));
        expect(await rejection(api().stm.upgrade({ dataset: ds.name, scope: dm, turnId: "t3", categories: more }))).toMatchObject({ code: "BAD_REQUEST", field: "categories" });
        expect(await rejection(api().stm.upgrade({ dataset: ds.name, scope: dm, turnId: "t3", categories: { a: "y".repeat(501) } }))).toMatchObject({
          code: "BAD_REQUEST",
          field: "categories.a",
        });
        expect(await rejection(api().stm.upgrade({ dataset: ds.name, scope: dm, turnId: "t3" }))).toMatchObject({ code: "BAD_REQUEST", field: "summary" });
        expect(await rejection(api().stm.executeToolCall({ dataset: ds.name, scope: dm, turnId: "t3", arguments: "{not json" }))).toMatchObject({
          code: "BAD_REQUEST",
          field: "arguments",
        });
        expect(await rejection(api().stm.executeToolCall({ dataset: ds.name, scope: dm, turnId: "t3", arguments: { summary: 3 } }))).toMatchObject({
          code: "BAD_REQUEST",
          field: "arguments.summary",
        });
        expect(await rejection(api().stm.executeToolCall({ dataset: ds.name, scope: dm, turnId: "t3", arguments: '{"summary":"a","extra":1}' }))).toMatchObject({
          code: "BAD_REQUEST",
        });
        expect(await rejection(api().stm.capture({ dataset: ds.name, scope: { userId: "a:b", channelId: "c" }, messages: [say("x")] }))).toMatchObject({
          code: "BAD_REQUEST",
          field: "scope.userId",
        });
        const rows = await rowsOf(ds.id);
        expect(rows).toEqual([{ key: "shortterm:user:u1:dm1", summary: "kept", version: 2 }]);
        // the tool call a model makes: a JSON string
        const applied = await api().stm.executeToolCall({ dataset: ds.name, scope: dm, turnId: "t4", arguments: JSON.stringify({ summary: "from the tool" }) });
        expect(applied).toMatchObject({ applied: true, version: 3, summary: "from the tool" });
      });

      it("the tool's definition is an OpenAI function tool with the limits", async () => {
        const tool = await api().stm.tool();
        expect(tool).toMatchObject({ type: "function", function: { name: "update_short_term_memory" } });
        expect(tool.function.parameters).toMatchObject({ properties: { summary: { maxLength: 500 }, categories: { maxProperties: 32 } } });
      });

      it("context: other channels of the user and the server as the mode says; a persona is a memory of its own", async () => {
        const ds = await freshDataset(ctx().app, "stm");
        const other: Scope = { userId: "u1", channelId: "random", serverId: "s1" };
        const otherDistilled: Scope = { userId: "u1", channelId: "dm9" };
        await api().stm.capture({ dataset: ds.name, scope: other, messages: [say("the raw words of random")] });
        await api().stm.capture({ dataset: ds.name, scope: otherDistilled, messages: [say("the raw words of the DM")] });
        await api().stm.upgrade({ dataset: ds.name, scope: otherDistilled, turnId: "t", summary: "The DM's summary." });
        // another user's channel on the same server, and another user's DM
        await api().stm.capture({ dataset: ds.name, scope: { userId: "u2", channelId: "art", serverId: "s1" }, messages: [say("u2 in art")] });
        await api().stm.capture({ dataset: ds.name, scope: { userId: "u2", channelId: "dm2" }, messages: [say("u2's secret DM")] });
        await api().stm.capture({ dataset: ds.name, scope: { ...guild, personaId: "pirate" }, messages: [say("arr")] });
        await api().stm.capture({ dataset: ds.name, scope: guild, messages: [say("here")] });

        const mixed = await api().stm.context({ dataset: ds.name, scope: guild, mode: "mixed" });
        expect(mixed.otherChannels.map((e) => e.channelId).sort()).toEqual(["art", "dm9", "random"]);
        expect(mixed.text).toContain("the raw words of random");
        expect(mixed.text).toContain("The DM's summary.");
        expect(mixed.text).toContain("the raw words of the DM");
        expect(mixed.text).not.toContain("secret");
        expect(mixed.text).not.toContain("arr");
        const distilled = await api().stm.context({ dataset: ds.name, scope: guild, mode: "distilled" });
        expect(distilled.text).toContain("The DM's summary.");
        expect(distilled.text).not.toContain("raw words");
        const raw = await api().stm.context({ dataset: ds.name, scope: guild, mode: "raw" });
        expect(raw.text).toContain("the raw words of random");
        expect(raw.text).not.toContain("The DM's summary.");
        // a DM's context: the user's channels only, not the server's other users
        const fromDm = await api().stm.context({ dataset: ds.name, scope: dm });
        expect(fromDm.otherChannels.map((e) => e.channelId).sort()).toEqual(["dm9", "general", "random"]);
        const pirate = await api().stm.context({ dataset: ds.name, scope: { ...guild, personaId: "pirate" } });
        expect(pirate.sameChannel?.messages.map((m) => m.content)).toEqual(["arr"]);
        expect(pirate.otherChannels).toEqual([]);
      });

      it("clearChannel: a read right after sees nothing of the channel; other channels stay", async () => {
        const ds = await freshDataset(ctx().app, "stm");
        await api().stm.capture({ dataset: ds.name, scope: guild, messages: [say("to be reset")] });
        await api().stm.upgrade({ dataset: ds.name, scope: guild, turnId: "t", summary: "reset me" });
        await api().stm.capture({ dataset: ds.name, scope: dm, messages: [say("stays")] });
        const r = await api().stm.clearChannel({ dataset: ds.name, channelId: "general", serverId: "s1" });
        expect(r.deleted).toEqual({ short_term_memories: 2, short_term_memory_versions: 2 });
        const c = await api().stm.context({ dataset: ds.name, scope: guild });
        expect(c.sameChannel).toBeNull();
        expect(c.text).not.toContain("reset");
        expect(c.text).toContain("stays");
        // the channel starts again, without its old messages
        await api().stm.capture({ dataset: ds.name, scope: guild, messages: [say("fresh")] });
        const again = await api().stm.context({ dataset: ds.name, scope: guild });
        expect(again.sameChannel?.messages.map((m) => m.content)).toEqual(["fresh"]);
      });

      it("clearUser and subjects.purge: the user's keys, the server keys they wrote to, and their messages go; others stay", async () => {
        const ds = await freshDataset(ctx().app, "stm");
        const u2: Scope = { userId: "u2", channelId: "general", serverId: "s1" };
        await api().stm.capture({ dataset: ds.name, scope: { userId: "u2", channelId: "dm2" }, messages: [say("u2 alone")] });
        await api().stm.capture({ dataset: ds.name, scope: dm, messages: [say("u1 alone")] });
        await api().stm.capture({ dataset: ds.name, scope: guild, messages: [say("u1 in general")] });
        await api().stm.capture({ dataset: ds.name, scope: u2, messages: [say("u2 in general")] });
        const r = await api().stm.clearUser({ dataset: ds.name, userId: "u1" });
        expect(r.keys.sort()).toEqual(["shortterm:server:s1:general", "shortterm:user:u1:dm1", "shortterm:user:u1:general"]);
        expect((await rowsOf(ds.id)).map((x) => x.key)).toEqual(["shortterm:user:u2:dm2", "shortterm:user:u2:general"]);
        const seen = await api().stm.context({ dataset: ds.name, scope: u2, mode: "mixed" });
        expect(JSON.stringify(seen)).not.toContain("u1");
        expect(seen.sameChannel).toBeNull();

        // subjects.purge of u2 clears their short-term memory and says so in its receipt
        const receipt = await purgeSubject({
          db: ctx().app.database.db,
          datasets: [ds],
          subject: { userId: "u2" },
          actor: { kind: "system", id: null, label: "test" },
          stmCache: ctx().app.stmCache,
        });
        expect(receipt.deleted.short_term_memories).toBe(2);
        expect(await rowsOf(ds.id)).toEqual([]);
        expect((await api().stm.context({ dataset: ds.name, scope: { userId: "u2", channelId: "dm2" } })).text).toBe("");
      });

      it("the admin reads: scopes by user, server or channel, paged; one key with its messages and versions", async () => {
        const ds = await freshDataset(ctx().app, "stm");
        await api().stm.capture({ dataset: ds.name, scope: guild, messages: [say("in general")] });
        await api().stm.capture({ dataset: ds.name, scope: dm, messages: [say("in a DM")] });
        await api().stm.capture({ dataset: ds.name, scope: { userId: "u2", channelId: "general", serverId: "s1" }, messages: [say("u2 speaks")] });
        await api().stm.upgrade({ dataset: ds.name, scope: dm, turnId: "a", summary: "first" });
        await api().stm.upgrade({ dataset: ds.name, scope: dm, turnId: "b", summary: "second" });
        const all = await api().stm.scopes({ dataset: ds.name });
        expect(all.items).toHaveLength(4);
        expect(all.items[0]).toMatchObject({ key: "shortterm:user:u1:dm1", summary: "second", version: 2 });
        const ofU1 = await api().stm.scopes({ dataset: ds.name, userId: "u1" });
        // their user keys and the server key they wrote to
        expect(ofU1.items.map((i) => i.key).sort()).toEqual(["shortterm:server:s1:general", "shortterm:user:u1:dm1", "shortterm:user:u1:general"]);
        expect((await api().stm.scopes({ dataset: ds.name, serverId: "s1", channelId: "general" })).items.map((i) => i.key).sort()).toEqual([
          "shortterm:server:s1:general",
          "shortterm:user:u1:general",
          "shortterm:user:u2:general",
        ]);
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await api().stm.scopes({ dataset: ds.name, limit: 1, cursor });
          seen.push(...page.items.map((i) => i.key));
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        expect(seen).toEqual(all.items.map((i) => i.key));
        const server = await api().stm.entry({ dataset: ds.name, key: "shortterm:server:s1:general" });
        expect(server.messages.map((m) => [m.content, m.userId])).toEqual([
          ["in general", "u1"],
          ["u2 speaks", "u2"],
        ]);
        expect(server.writers).toEqual(["u1", "u2"]);
        const d = await api().stm.entry({ dataset: ds.name, key: "shortterm:user:u1:dm1" });
        expect(d.versions.map((v) => [v.version, v.summary, v.turnId])).toEqual([
          [2, "second", "b"],
          [1, "first", "a"],
        ]);
        expect(await rejection(api().stm.entry({ dataset: ds.name, key: "shortterm:user:nobody:x" }))).toMatchObject({ code: "NOT_FOUND" });
        expect(await rejection(api().stm.scopes({ dataset: ds.name, cursor: "bm90IGEgY3Vyc29y" }))).toMatchObject({ code: "BAD_REQUEST", field: "cursor" });
      });

      it("hydration: after a restart the durable state is back with empty message lists (kept in Redis), which fill again", async () => {
        const ds = await freshDataset(ctx().app, "stm");
        await api().stm.capture({ dataset: ds.name, scope: guild, messages: [say("before the restart")] });
        await api().stm.upgrade({ dataset: ds.name, scope: guild, turnId: "t", categories: { mood: "cheerful" } });
        await api().stm.capture({ dataset: ds.name, scope: guild, messages: [say("after the upgrade")] });
        // another process on the same database: a new app, its own cache
        const restarted = await createApp({ env: testEnv({ ...STM_ENV, ...cache() }), database: ctx().app.database, worker: false });
        // the in-process cache starts empty; Redis's outlives the process
        const before = redis() ? ["before the restart", "after the upgrade"] : [];
        try {
          const other = callerFor(restarted);
          const c = await other.stm.context({ dataset: ds.name, scope: guild, mode: "raw" });
          expect(c.sameChannel).toMatchObject({ categories: { mood: "cheerful" } });
          expect(c.sameChannel?.messages.map((m) => m.content)).toEqual(before);
          expect(c.cadence).toMatchObject({ turnsSinceUpgrade: 1, version: 1 });
          await other.stm.capture({ dataset: ds.name, scope: guild, messages: [say("after the restart")] });
          const d = await other.stm.context({ dataset: ds.name, scope: guild, mode: "raw" });
          expect(d.sameChannel?.messages.map((m) => m.content)).toEqual([...before, "after the restart"].slice(-3));
          expect(d.cadence.turnsSinceUpgrade).toBe(2);
        } finally {
          await restarted.stop();
        }
      });

      it("deletion survives a restart: nothing of a forgotten user or a reset channel comes back", async () => {
        const ds = await freshDataset(ctx().app, "stm");
        await api().stm.capture({ dataset: ds.name, scope: dm, messages: [say("forget me")] });
        await api().stm.upgrade({ dataset: ds.name, scope: dm, turnId: "t", summary: "about u1" });
        await api().stm.capture({ dataset: ds.name, scope: guild, messages: [say("reset me")] });
        await api().stm.clearUser({ dataset: ds.name, userId: "u1" });
        const restarted = await createApp({ env: testEnv(cache()), database: ctx().app.database, worker: false });
        try {
          const other = callerFor(restarted);
          expect((await other.stm.scopes({ dataset: ds.name })).items).toEqual([]);
          const c = await other.stm.context({ dataset: ds.name, scope: dm });
          expect(c).toMatchObject({ text: "", sameChannel: null, otherChannels: [] });
          expect(await versionsOf(ds.id)).toEqual([]);
        } finally {
          await restarted.stop();
        }
        // and in this process, a capture after the reset starts the key again without the old messages
        await api().stm.capture({ dataset: ds.name, scope: dm, messages: [say("new start")] });
        expect((await api().stm.context({ dataset: ds.name, scope: dm })).sameChannel?.messages.map((m) => m.content)).toEqual(["new start"]);
      });
    },
    { env: () => ({ ...STM_ENV, ...cache() }) },
  );
}

suite("short-term memory", () => ({}));
describeWithRedis("with Redis", ({ url, prefix }) => suite("short-term memory (Redis message cache)", () => ({ GB_REDIS_URL: url, GB_REDIS_PREFIX: prefix })));
