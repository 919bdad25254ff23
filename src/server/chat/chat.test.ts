import { afterAll, beforeAll, expect, it } from "vitest";
import { callerFor, rejection } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { describeWithRedis } from "../../test/redis";
import { type ChatRequestBody, type ChatValue, type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai";
import { BUILTIN_REPLY } from "./turn";

/*
 * chat.turn with builtin models (a reply that says it is none, an extractive summary upgrade every
 * GB_STM_UPGRADE_EVERY turns) and with the openai provider against a loopback server whose chat
 * answers are scripted per test (tool calls included).
 */

const scope = { userId: "u-ana", channelId: "general", serverId: "s1" };

/** The builtin suite, with the in-process message cache, and with Redis's when TEST_REDIS_URL is set. */
function builtinSuite(name: string, cache: () => Record<string, string>) {
  describeEachDriver(
    name,
    (ctx) => {
      const api = () => callerFor(ctx().app);

      it("an explicit request to remember goes to long-term memory, and the reply says plainly it is builtin", async () => {
        const ds = await freshDataset(ctx().app, "chat");
        const r = await api().chat.turn({ dataset: ds.name, scope, message: "Please remember that my sister is called Ines." });
        expect(r).toMatchObject({ memoryIntent: true, toolCalls: [] });
        expect(r.queryRunId).toBeUndefined();
        expect(r.reply.startsWith(BUILTIN_REPLY)).toBe(true);
        expect(r.reply).toContain("my sister is called Ines");
        const run = await api().remember.get({ id: r.rememberRunId! });
        expect(run.params).toMatchObject({ text: "my sister is called Ines", userId: "u-ana" });
        // the turn is captured in short-term memory
        const c = await api().stm.context({ dataset: ds.name, scope });
        expect(c.sameChannel?.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      });

      it("a dataset with memory: the turn asks it and gives what it found", async () => {
        const ds = await freshDataset(ctx().app, "chat");
        await api().remember.submit({ dataset: ds.name, text: "Dana teaches math in Oslo.", wait: true });
        const r = await api().chat.turn({ dataset: ds.name, scope, message: "Where does Dana teach?" });
        expect(r.queryRunId).toBeDefined();
        expect(r.sources.length).toBeGreaterThan(0);
        expect(r.reply).toContain("Oslo");
        expect(r.memoryIntent).toBe(false);
      });

      it("the builtin model upgrades the summary every GB_STM_UPGRADE_EVERY turns (2 here)", async () => {
        const ds = await freshDataset(ctx().app, "chat");
        const first = await api().chat.turn({ dataset: ds.name, scope, message: "We are planning a trip to Porto in May." });
        expect(first.upgraded).toBeUndefined();
        const second = await api().chat.turn({ dataset: ds.name, scope, message: "We will go there by train." });
        expect(second.upgraded).toMatchObject({ applied: true, version: 1 });
        const c = await api().stm.context({ dataset: ds.name, scope });
        expect(c.sameChannel?.summary).toMatch(/Porto|train/);
        expect(c.cadence).toMatchObject({ turnsSinceUpgrade: 0, version: 1 });
      });

      it("query.ask with a scope reads its short-term memory from this cache", async () => {
        const ds = await freshDataset(ctx().app, "chat");
        await api().remember.submit({ dataset: ds.name, text: "Dana teaches math in Oslo.", wait: true });
        await api().stm.capture({ dataset: ds.name, scope, messages: [{ role: "user", content: "we were talking about Dana" }] });
        const r = await api().query.ask({ dataset: ds.name, question: "Where does Dana teach?", scope });
        const [out] = await api().runs.query.outputs({ id: r.queryRunId, stage: "query" });
        expect(out?.output).toMatchObject({ shortTerm: { keys: ["shortterm:server:s1:general"] } });
      });

      it("bad input is BAD_REQUEST with the field", async () => {
        const ds = await freshDataset(ctx().app, "chat");
        expect(await rejection(api().chat.turn({ dataset: ds.name, scope, message: "  " }))).toMatchObject({ code: "BAD_REQUEST", field: "message" });
        expect(await rejection(api().chat.turn({ dataset: ds.name, scope: { ...scope, userId: "" }, message: "hi" }))).toMatchObject({
          code: "BAD_REQUEST",
          field: "scope.userId",
        });
      });
    },
    { env: () => ({ GB_STM_UPGRADE_EVERY: "2", ...cache() }) },
  );
}

builtinSuite("chat.turn with builtin models", () => ({}));
describeWithRedis("with Redis", ({ url, prefix }) => builtinSuite("chat.turn with builtin models (Redis message cache)", () => ({ GB_REDIS_URL: url, GB_REDIS_PREFIX: prefix })));

let fake: FakeOpenAI;
/** the chat answers of the current test: a function of the request and its call number (in this test) */
let script: (body: ChatRequestBody, call: number) => ChatValue = () => "hello";
let calls = 0;

/** remember's structured calls (a turn that stores a text runs them in the background) get valid answers */
function structured(body: ChatRequestBody): ChatValue | null {
  const task = (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name;
  if (!task) return null;
  if (task === "complexity") return { content: { complexity: "simple", chunk: false, reason: "short" } };
  if (task === "summary") return { content: { summary: "A note." } };
  if (task === "resolution") return { content: { entities: [], facts: [] } };
  if (task === "graph") return { content: { entities: [], facts: [] } };
  return { content: { answer: "I don't have any information about that.", cited: [] } };
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ chat: (body) => structured(body) ?? script(body, calls++) });
});
afterAll(() => fake.close());

const toolsOf = (body: ChatRequestBody) => ((body.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name);
const systemOf = (body: ChatRequestBody) => ((body.messages as { role: string; content: string }[])[0] ?? { content: "" }).content;

describeEachDriver(
  "chat.turn with the openai provider",
  (ctx) => {
    const api = () => callerFor(ctx().app);
    // the chat calls of turns (not remember's structured ones)
    const chats = () =>
      fake.requests
        .filter((r) => r.path.endsWith("/chat/completions"))
        .map((r) => r.body as ChatRequestBody)
        .filter((b) => !b.response_format);

    it("offers the upgrade tool, applies the model's call once per turn, and gives the tool's result back", async () => {
      const ds = await freshDataset(ctx().app, "chat");
      calls = 0;
      script = (body, call) => {
        if (call === 0) {
          // two upgrades in one turn: the first applies, the second is refused
          return {
            toolCalls: [
              { id: "c1", name: "update_short_term_memory", arguments: { summary: "Ana plans a trip to Porto." } },
              { id: "c2", name: "update_short_term_memory", arguments: { summary: "second try" } },
            ],
          };
        }
        return "Have a nice trip!";
      };
      const before = chats().length;
      const r = await api().chat.turn({ dataset: ds.name, scope, message: "I'm planning a trip to Porto.", persona: "You are Bob, a cheerful bot." });
      expect(r.reply).toBe("Have a nice trip!");
      expect(r.toolCalls.map((t) => t.result)).toMatchObject([{ applied: true, version: 1 }, { applied: false, reason: "already_upgraded_this_turn" }]);
      const sent = chats().slice(before);
      expect(sent).toHaveLength(2);
      expect(toolsOf(sent[0]!)).toEqual(["update_short_term_memory"]);
      expect(systemOf(sent[0]!)).toContain("You are Bob, a cheerful bot.");
      // the second call carries the tool results
      expect(JSON.stringify(sent[1]!.messages)).toContain("already_upgraded_this_turn");
      // the next turn's prompt has the summary
      calls = 0;
      script = () => "Porto is lovely.";
      const next = chats().length;
      await api().chat.turn({ dataset: ds.name, scope, message: "Any tips?" });
      expect(systemOf(chats()[next]!)).toContain("Ana plans a trip to Porto.");
    });

    it("withholds the tool in a turn that asks to remember, and stores the text long-term", async () => {
      const ds = await freshDataset(ctx().app, "chat");
      calls = 0;
      script = () => "Noted!";
      const before = chats().length;
      const r = await api().chat.turn({ dataset: ds.name, scope, message: "Don't forget that my flat is 4B." });
      expect(r).toMatchObject({ memoryIntent: true, reply: "Noted!" });
      expect(r.rememberRunId).toBeDefined();
      const sent = chats().slice(before);
      expect(sent.length).toBeGreaterThanOrEqual(1);
      expect(sent.every((b) => toolsOf(b).length === 0)).toBe(true);
      expect(systemOf(sent.at(-1)!)).toContain("my flat is 4B");
      expect(await ctx().app.remember.waitFor(r.rememberRunId!, 30_000)).toMatchObject({ status: "succeeded" });
    });

    it("stops after GB_TURN_MAX_STEPS tool steps (2 here): the last call offers no tools", async () => {
      const ds = await freshDataset(ctx().app, "chat");
      calls = 0;
      script = (body) => (toolsOf(body).length ? { toolCalls: [{ name: "update_short_term_memory", arguments: { categories: { k: "v" } } }] } : "done");
      const before = chats().length;
      const r = await api().chat.turn({ dataset: ds.name, scope, message: "Keep going." });
      expect(r.reply).toBe("done");
      const sent = chats().slice(before);
      expect(sent.map((b) => toolsOf(b).length)).toEqual([1, 1, 0]);
      expect(r.toolCalls).toHaveLength(2);
      // a model's bad arguments are its error to read, not the caller's
      calls = 0;
      script = (body, call) => (call === 0 ? { toolCalls: [{ name: "update_short_term_memory", arguments: { summary: 3 } }] } : "ok");
      const bad = await api().chat.turn({ dataset: ds.name, scope, message: "Again." });
      expect(bad.toolCalls[0]?.result).toMatchObject({ error: expect.stringContaining("arguments.summary") });
    });
  },
  { env: () => ({ GB_MODELS: "openai", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: fake.url, GB_MODEL_MAX_RETRIES: "0", GB_TURN_MAX_STEPS: "2" }) },
);
