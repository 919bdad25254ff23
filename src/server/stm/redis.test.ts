import { sql } from "drizzle-orm";
import { expect, it } from "vitest";
import { callerFor, rejection } from "../../test/callers";
import { describeEachDriver, freshDataset, testEnv } from "../../test/db";
import { DOWN_REDIS_URL, describeWithRedis } from "../../test/redis";
import { createApp } from "../app";
import { queryRows } from "../db/rows";
import type { Scope } from "./schemas";

/*
 * Several app processes (GB_REDIS_URL): two Apps on one database and one Redis stand for two
 * processes behind a load balancer. And a Redis that is down: the calls that need it fail, and
 * say so, and nothing durable is lost.
 */

const guild: Scope = { userId: "u1", channelId: "general", serverId: "s1" };
const say = (content: string) => ({ role: "user" as const, content });

describeWithRedis("short-term memory shared through Redis", ({ url, prefix }) => {
  const env = () => ({ GB_REDIS_URL: url, GB_REDIS_PREFIX: prefix, GB_STM_MAX_MESSAGES_PER_CHANNEL: "3" });
  describeEachDriver(
    "two processes",
    (ctx) => {
      const second = () => createApp({ env: testEnv(env()), database: ctx().app.database, worker: false });

      it("a capture in one process is in the other's context; a channel cleared in one is gone in the other", async () => {
        const ds = await freshDataset(ctx().app, "stm-redis");
        const other = await second();
        try {
          const [a, b] = [callerFor(ctx().app), callerFor(other)];
          for (const text of ["one", "two", "three", "four"]) await a.stm.capture({ dataset: ds.name, scope: guild, messages: [say(text)] });
          const seen = await b.stm.context({ dataset: ds.name, scope: guild, mode: "raw" });
          expect(seen.sameChannel?.messages.map((m) => m.content)).toEqual(["two", "three", "four"]);
          await b.stm.capture({ dataset: ds.name, scope: guild, messages: [say("from b")] });
          expect((await a.stm.context({ dataset: ds.name, scope: guild, mode: "raw" })).sameChannel?.messages.map((m) => m.content)).toEqual(["three", "four", "from b"]);

          await a.stm.clearChannel({ dataset: ds.name, channelId: "general", serverId: "s1" });
          expect((await b.stm.context({ dataset: ds.name, scope: guild, mode: "raw" })).sameChannel).toBeNull();
          // the channel made again: a new epoch, none of the old messages
          await b.stm.capture({ dataset: ds.name, scope: guild, messages: [say("after the reset")] });
          expect((await a.stm.context({ dataset: ds.name, scope: guild, mode: "raw" })).sameChannel?.messages.map((m) => m.content)).toEqual(["after the reset"]);
        } finally {
          await other.stop();
        }
      });

      it("a user forgotten in one process: their messages are gone from the other's server channel", async () => {
        const ds = await freshDataset(ctx().app, "stm-redis");
        const other = await second();
        try {
          const [a, b] = [callerFor(ctx().app), callerFor(other)];
          await a.stm.capture({ dataset: ds.name, scope: { userId: "u2", channelId: "general", serverId: "s1" }, messages: [say("u2 was here")] });
          await a.stm.capture({ dataset: ds.name, scope: guild, messages: [say("u1 was here")] });
          await b.stm.clearUser({ dataset: ds.name, userId: "u1" });
          const c = await a.stm.context({ dataset: ds.name, scope: { userId: "u2", channelId: "general", serverId: "s1" }, mode: "raw" });
          expect(JSON.stringify(c)).not.toContain("u1 was here");
        } finally {
          await other.stop();
        }
      });
    },
    { env },
  );
});

describeEachDriver(
  "short-term memory with its Redis down",
  (ctx) => {
    it("start-up works; capture is SERVICE_UNAVAILABLE at once, saying what, and the durable rows are written", { timeout: 5000 }, async () => {
      const ds = await freshDataset(ctx().app, "stm-down");
      const api = callerFor(ctx().app);
      const failed = await rejection(api.stm.capture({ dataset: ds.name, scope: guild, messages: [say("lost from the cache only")] }));
      expect(failed).toEqual({ code: "SERVICE_UNAVAILABLE", message: "the short-term memory cache (Redis) is unavailable: no connection", field: null });
      expect((await rejection(api.stm.context({ dataset: ds.name, scope: guild }))).code).toBe("SERVICE_UNAVAILABLE");
      const rows = await queryRows<{ key: string }>(ctx().app.database.db, sql`SELECT key FROM short_term_memories WHERE dataset_id = ${ds.id} ORDER BY key`);
      expect(rows.map((r) => r.key)).toEqual(["shortterm:server:s1:general", "shortterm:user:u1:general"]);
      // what needs no Redis still works
      expect((await api.datasets.list()).items.map((d) => d.name)).toContain(ds.name);
    });
  },
  { env: () => ({ GB_REDIS_URL: DOWN_REDIS_URL }) },
);
