import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { callerFor } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { aliceInParisChat, type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai";
import { inferences } from "../db/schema";

/*
 * query through the openai provider against a loopback OpenAI-compatible server: the question is
 * embedded (semantic embeddings: the vector lists are searched), the model gets the numbered
 * sources, and its citations come back.
 */
let fake: FakeOpenAI;
let answer: string | object = { answer: "", cited: [] };

beforeAll(async () => {
  fake = await startFakeOpenAI({ chat: aliceInParisChat(() => ({ content: answer, usage: { prompt_tokens: 120, completion_tokens: 9 } })) });
});
afterAll(() => fake.close());

describeEachDriver(
  "query with the openai provider",
  (ctx) => {
    it("embeds the question, gives the model numbered sources, and returns its cited answer", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      expect((await api.remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true })).status).toBe("succeeded");
      answer = { answer: "Alice lives in Paris [1].", cited: [1] };
      const before = fake.requests.length;
      const r = await api.query.ask({ dataset: ds.name, question: "Where does Alice live?" });
      expect(r.answer).toBe("Alice lives in Paris [1].");
      expect(r.sources[0]?.text).toMatch(/Paris/);
      const sent = fake.requests.slice(before);
      expect(sent.filter((q) => q.path.endsWith("/embeddings"))).toHaveLength(1);
      const chat = sent.find((q) => q.path.endsWith("/chat/completions"));
      expect(JSON.stringify(chat?.body)).toContain("Where does Alice live?");
      expect(JSON.stringify(chat?.body)).toContain("[1]");
      const rows = await app.database.db.select().from(inferences).where(eq(inferences.runId, r.queryRunId));
      expect(rows.map((x) => [x.stage, x.task]).sort()).toEqual([
        ["embed_question", "embed"],
        ["query", "answer"],
      ]);
      const receipts = await api.runs.query.outputs({ id: r.queryRunId, stage: "retrieve_graph" });
      expect(JSON.stringify(receipts[0]?.output)).toContain("facts_vector");
    });

    it("gives the model the scope's short-term memory with the sources", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      expect((await api.remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true })).status).toBe("succeeded");
      const scope = { userId: "u-bob", channelId: "general", serverId: "s1" };
      await api.stm.upgrade({ dataset: ds.name, scope, turnId: "t1", summary: "Bob is asking about his colleague Alice." });
      answer = { answer: "Paris [1].", cited: [1] };
      const before = fake.requests.length;
      await api.query.ask({ dataset: ds.name, question: "Where does she live?", scope });
      const chat = fake.requests.slice(before).find((q) => q.path.endsWith("/chat/completions"));
      const sent = JSON.stringify(chat?.body);
      expect(sent).toContain("Short-term memory:");
      expect(sent).toContain("Bob is asking about his colleague Alice.");
      expect(sent).toContain("[1] ");
    });

    it("answers from the text lists when the question cannot be embedded, and flags the run", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      expect((await api.remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true })).status).toBe("succeeded");
      answer = { answer: "Alice lives in Paris [1].", cited: [1] };
      fake.setEmbeddingError(503);
      try {
        const r = await api.query.ask({ dataset: ds.name, question: "Where does Alice live?" });
        expect(r.answer).toBe("Alice lives in Paris [1].");
        expect(r.sources[0]?.text).toMatch(/Paris/);
        const run = await api.runs.query.get({ id: r.queryRunId });
        expect(run.status).toBe("succeeded");
        const stage = (name: string) => run.stages.find((s) => s.name === name);
        expect(stage("embed_question")).toMatchObject({ status: "failed" });
        expect(stage("embed_question")?.error).toMatch(/HTTP 503/);
        expect(stage("retrieve_graph")?.status).toBe("succeeded");
        expect((await api.runs.query.list({ dataset: ds.name, flagged: true })).items.map((x) => x.id)).toContain(r.queryRunId);
        const receipts = await api.runs.query.outputs({ id: r.queryRunId, stage: "retrieve_graph" });
        expect(JSON.stringify(receipts[0]?.output)).toMatch(/embedding the question failed/);
        const failed = await app.database.db.select().from(inferences).where(eq(inferences.runId, r.queryRunId));
        expect(failed.find((x) => x.task === "embed")).toMatchObject({ stage: "embed_question" });
        expect(failed.find((x) => x.task === "embed")?.error).toMatch(/HTTP 503/);
      } finally {
        fake.setEmbeddingError(null);
      }
    });

    it("asks no model, not even to embed, when the dataset is empty", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      const before = fake.requests.length;
      const r = await api.query.ask({ dataset: ds.name, question: "Where does Alice live?" });
      expect(r.sources).toEqual([]);
      expect(fake.requests.length).toBe(before);
      const run = await api.runs.query.get({ id: r.queryRunId });
      expect(run.stages.map((s) => [s.name, s.status])).toEqual([
        ["embed_question", "succeeded"],
        ["retrieve_graph", "succeeded"],
        ["detect_geo", "skipped"],
        ["nearby_geo", "skipped"],
        ["query", "skipped"],
      ]);
    });

    it("fails the run with the model's error when the answer is malformed", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      await api.remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true });
      answer = "not json at all";
      const err = (await api.query.ask({ dataset: ds.name, question: "Where does Alice live?" }).catch((e: unknown) => e)) as Error & { code?: string };
      expect(err).toMatchObject({ code: "BAD_GATEWAY" });
      expect(err.message).toMatch(/malformed JSON from model/);
      const runs = await api.runs.query.list({ dataset: ds.name });
      expect(runs.items[0]).toMatchObject({ status: "failed" });
      expect(runs.items[0]?.error).toMatch(/malformed JSON/);
      const run = await api.runs.query.get({ id: runs.items[0]!.id });
      expect(run.stages.find((s) => s.name === "query")?.status).toBe("failed");
    });
  },
  { env: () => ({ GB_MODELS: "openai", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: fake.url, GB_MODEL_MAX_RETRIES: "0" }) },
);
