import { describe, expect, it } from "vitest";
import type { VersionRow } from "@/server/stm/store";
import {
  categoryEntries,
  channelLabel,
  clearChannelInput,
  clearedNote,
  clearUserInput,
  filterProblems,
  forgettableUsers,
  messageAuthor,
  NO_FILTER,
  scopeIdProblem,
  scopesInput,
  stmHref,
  stmStateFromParams,
  turnsLabel,
  versionHistory,
} from "./stm-view";

describe("the STM page's URL", () => {
  it("reads the filter and the open key, blanks as none", () => {
    const params = new URLSearchParams("dataset=d&user=alice&server=%20&channel=general&key=shortterm%3Auser%3Aalice%3Ageneral");
    expect(stmStateFromParams(params)).toEqual({
      filter: { userId: "alice", serverId: "", channelId: "general" },
      key: "shortterm:user:alice:general",
    });
    expect(stmStateFromParams(new URLSearchParams("dataset=d"))).toEqual({ filter: NO_FILTER, key: null });
  });

  it("writes only what is given, and reads back the same", () => {
    expect(stmHref("d", NO_FILTER)).toBe("/admin/stm?dataset=d");
    const href = stmHref("d", { userId: " alice ", serverId: "", channelId: "c1" }, "shortterm:server:s:c1");
    expect(href).toBe("/admin/stm?dataset=d&user=alice&channel=c1&key=shortterm%3Aserver%3As%3Ac1");
    expect(stmStateFromParams(new URL(href, "http://x").searchParams)).toEqual({
      filter: { userId: "alice", serverId: "", channelId: "c1" },
      key: "shortterm:server:s:c1",
    });
  });
});

describe("the filter", () => {
  it("refuses what the server's scope ids refuse", () => {
    expect(scopeIdProblem("alice")).toBeNull();
    expect(scopeIdProblem("")).toBeNull();
    expect(scopeIdProblem("a:b")).toBe('must not contain ":" or white space');
    expect(scopeIdProblem("a b")).toBe('must not contain ":" or white space');
    expect(scopeIdProblem("x".repeat(129))).toBe("must be at most 128 characters");
    expect(filterProblems({ userId: "ok", serverId: "s 1", channelId: "" })).toEqual({ serverId: 'must not contain ":" or white space' });
  });

  it("gives stm.scopes the fields typed, trimmed", () => {
    expect(scopesInput("d", NO_FILTER)).toEqual({ dataset: "d" });
    expect(scopesInput("d", { userId: " alice", serverId: "", channelId: "c1 " })).toEqual({ dataset: "d", userId: "alice", channelId: "c1" });
  });
});

describe("the actions", () => {
  const serverKey = { kind: "server" as const, userId: null, serverId: "s1", channelId: "c1", personaId: null, writers: ["alice", "bob"] };
  const dmKey = { kind: "user" as const, userId: "carol", serverId: null, channelId: "dm1", personaId: null, writers: ["carol"] };

  it("resets the key's channel on its server, or a direct message's channel alone", () => {
    expect(clearChannelInput("d", serverKey)).toEqual({ dataset: "d", channelId: "c1", serverId: "s1" });
    expect(clearChannelInput("d", dmKey)).toEqual({ dataset: "d", channelId: "dm1" });
    expect(channelLabel(serverKey)).toBe("channel c1 on server s1");
    expect(channelLabel(dmKey)).toBe("direct-message channel dm1");
  });

  it("offers the key's user first, then its writers, once each", () => {
    expect(forgettableUsers(serverKey)).toEqual(["alice", "bob"]);
    expect(forgettableUsers({ userId: "bob", writers: ["alice", "bob"] })).toEqual(["bob", "alice"]);
    expect(forgettableUsers({ userId: null, writers: [] })).toEqual([]);
  });

  it("forgets a user in this dataset only", () => {
    expect(clearUserInput("d", "alice")).toEqual({ dataset: "d", userId: "alice" });
  });

  it("says what was deleted", () => {
    const deleted = (keys: string[], versions: number) => ({ keys, deleted: { short_term_memories: keys.length, short_term_memory_versions: versions } });
    expect(clearedNote("Channel c1 reset", deleted(["a", "b"], 3))).toBe("Channel c1 reset: 2 keys deleted, with 3 versions.");
    expect(clearedNote("alice forgotten", deleted(["a"], 1))).toBe("alice forgotten: 1 key deleted, with 1 version.");
    expect(clearedNote("alice forgotten", deleted([], 0))).toBe("alice forgotten: nothing to delete.");
    expect(turnsLabel(1)).toBe("1 turn");
    expect(turnsLabel(0)).toBe("0 turns");
  });
});

describe("a cached message", () => {
  it("names its author, and the turn's user when that is someone else", () => {
    expect(messageAuthor({ role: "user", userId: "alice" })).toEqual({ author: "alice", turnOf: null });
    expect(messageAuthor({ role: "user", authorId: "alice", userId: "alice" })).toEqual({ author: "alice", turnOf: null });
    expect(messageAuthor({ role: "user", authorId: "bob", userId: "alice" })).toEqual({ author: "bob", turnOf: "alice" });
    expect(messageAuthor({ role: "assistant", userId: "alice" })).toEqual({ author: "assistant", turnOf: "alice" });
    expect(messageAuthor({ role: "assistant", authorId: "bot", userId: "alice" })).toEqual({ author: "bot", turnOf: "alice" });
  });
});

describe("the version history", () => {
  const at = new Date("2025-01-01T00:00:00Z");
  const v = (version: number, summary: string | null, categories: Record<string, string> | null): VersionRow => ({
    version,
    summary,
    categories,
    turnId: `t${version}`,
    userId: "alice",
    at,
  });

  it("sorts categories by name", () => {
    expect(categoryEntries({ mood: "happy", goal: "ship" })).toEqual([
      ["goal", "ship"],
      ["mood", "happy"],
    ]);
    expect(categoryEntries(null)).toEqual([]);
  });

  it("marks each version's changes against the one before it, newest first", () => {
    const history = versionHistory([
      v(3, "Planning the trip.", { city: "Berlin", mood: "calm" }),
      v(2, "Planning the trip.", { city: "Paris", goal: "book", mood: "calm" }),
      v(1, null, { city: "Paris" }),
    ]);
    expect(history.map((h) => h.version)).toEqual([3, 2, 1]);
    expect(history[0]).toMatchObject({
      summaryChanged: false,
      lines: [
        { name: "city", value: "Berlin", change: "changed" },
        { name: "mood", value: "calm", change: null },
        { name: "goal", value: "book", change: "removed" },
      ],
    });
    expect(history[1]).toMatchObject({
      summaryChanged: true,
      lines: [
        { name: "city", value: "Paris", change: null },
        { name: "goal", value: "book", change: "added" },
        { name: "mood", value: "calm", change: "added" },
      ],
    });
    // the first version is not compared: everything in it is simply there
    expect(history[2]).toMatchObject({ summaryChanged: false, lines: [{ name: "city", value: "Paris", change: null }] });
    expect(versionHistory([v(1, "Hello.", null)])[0]).toMatchObject({ summaryChanged: false, lines: [] });
  });
});
