import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { callerFor } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { type ChatRequestBody, type ChatValue, type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai";
import { entities, facts, inferences } from "../db/schema";

/*
 * remember through the openai provider, against a loopback OpenAI-compatible server whose
 * answers are scripted by the task (the json_schema name the provider asks for).
 */
let fake: FakeOpenAI;
/** per task: the answer, or a function of the call number of that task */
let script: Record<string, (n: number) => ChatValue>;
const calls: Record<string, number> = {};

const graph = {
  entities: [
    { name: "Alice", type: "person", aliases: [] },
    { name: "Paris", type: "place", aliases: [] },
  ],
  facts: [{ subject: "Alice", predicate: "lives_in", object: "Paris", objectIsEntity: true, sentence: "Alice lives in Paris.", validAt: null, invalidAt: null }],
};
const defaults: Record<string, (n: number) => ChatValue> = {
  complexity: () => ({ content: { complexity: "simple", chunk: false, reason: "one sentence" } }),
  graph: () => ({ content: graph }),
  summary: () => ({ content: { summary: "Alice lives in Paris." } }),
  resolution: () => ({ content: { entities: [], facts: [] } }),
};

beforeAll(async () => {
  fake = await startFakeOpenAI({
    chat: (body: ChatRequestBody) => {
      const task = (body.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema?.name ?? "chat";
      calls[task] = (calls[task] ?? 0) + 1;
      return (script[task] ?? defaults[task] ?? (() => "unexpected task"))(calls[task]!);
    },
  });
});
afterAll(() => fake.close());

describeEachDriver(
  "remember with the openai provider",
  (ctx) => {
    const reset = (s: Record<string, (n: number) => ChatValue> = {}) => {
      script = s;
      for (const k of Object.keys(calls)) delete calls[k];
    };

    it("runs the whole pipeline on the model server: ≤ 3 chat calls and one embedding batch per chunk", async () => {
      reset();
      const { app } = ctx();
      const ds = await freshDataset(app);
      const before = fake.requests.length;
      const r = await callerFor(app).remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true });
      expect(r).toMatchObject({ status: "succeeded" });
      const sent = fake.requests.slice(before);
      const chat = sent.filter((q) => q.path.endsWith("/chat/completions"));
      const embeds = sent.filter((q) => q.path.endsWith("/embeddings"));
      // classify (per text) + extract + summarize; nothing to resolve in an empty dataset
      expect(chat).toHaveLength(3);
      expect(embeds).toHaveLength(1);
      const db = app.database.db;
      const names = (await db.select({ name: entities.name }).from(entities).where(eq(entities.datasetId, ds.id))).map((e) => e.name).sort();
      expect(names).toEqual(["Alice", "Paris"]);
      const rows = await db.select().from(inferences).where(eq(inferences.datasetId, ds.id));
      // the model's calls, and resolve_geo's lookup of Paris in the offline gazetteer
      const models = rows.filter((x) => x.task !== "geocode");
      expect(models.every((x) => x.provider === "openai" && x.error === null)).toBe(true);
      expect(models.map((x) => x.stage).sort()).toEqual(["classify_complexity", "extract_graph", "load_candidates", "summarize_chunk"]);
      expect(rows.filter((x) => x.task === "geocode").map((x) => [x.stage, x.provider, x.error])).toEqual([["resolve_geo", "gazetteer", null]]);
    });

    it("embeds each chunk of a long text with its own entities and facts, also the chunks extracted ahead", async () => {
      // chunks ahead are extracted and embedded while earlier ones are stored (GB_EXTRACT_CONCURRENCY 4):
      // a chunk embedded before its graph came back once had no vectors for its entities, and
      // load_candidates failed on every text of several chunks
      reset({ complexity: () => ({ content: { complexity: "complex", chunk: true, reason: "long" } }) });
      const { app } = ctx();
      const ds = await freshDataset(app);
      const text = Array.from({ length: 400 }, (_, i) => `Alice walked ${i} kilometres along the river in Paris that week.`).join(" ");
      const before = fake.requests.length;
      const r = await callerFor(app).remember.submit({ dataset: ds.name, text, wait: true });
      expect(r).toMatchObject({ status: "succeeded" });
      const chunkCount = (await callerFor(app).runs.remember.get({ id: r.rememberRunId })).progress?.chunksTotal ?? 0;
      expect(chunkCount).toBeGreaterThan(4);
      const embeds = fake.requests.slice(before).filter((q) => q.path.endsWith("/embeddings"));
      // one batch per chunk: the chunk, its two entities and its fact
      expect(embeds).toHaveLength(chunkCount);
      for (const q of embeds) expect((q.body as { input: string[] }).input).toEqual([expect.any(String), "Alice", "Paris", "Alice lives in Paris."]);
    });

    it("a run with many model calls in flight warns of no listener leak (each call listens to the run's signal while it lasts)", async () => {
      // slow answers keep the chunks' calls in flight together: more than ten on the run's one signal
      reset({
        complexity: () => ({ content: { complexity: "complex", chunk: true, reason: "long" } }),
        graph: () => ({ content: graph, delayMs: 60 }),
        summary: () => ({ content: { summary: "Alice lives in Paris." }, delayMs: 60 }),
      });
      const { app } = ctx();
      const ds = await freshDataset(app);
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
      process.on("warning", onWarning);
      try {
        const text = Array.from({ length: 400 }, (_, i) => `Alice walked ${i} kilometres along the river in Paris that week.`).join(" ");
        const r = await callerFor(app).remember.submit({ dataset: ds.name, text, wait: true });
        expect(r).toMatchObject({ status: "succeeded" });
        // a warning is emitted on the next tick
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off("warning", onWarning);
      }
      expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
    });

    it("asks the model about a possible contradiction and retires the old fact", async () => {
      reset();
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      await api.remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true });
      reset({
        graph: () => ({
          content: {
            entities: [
              { name: "Alice", type: "person", aliases: [] },
              { name: "Berlin", type: "place", aliases: [] },
            ],
            facts: [{ subject: "Alice", predicate: "lives_in", object: "Berlin", objectIsEntity: true, sentence: "Alice lives in Berlin.", validAt: "2024-01-01", invalidAt: null }],
          },
        }),
        resolution: () => ({ content: { entities: [], facts: [{ n: 0, duplicateOf: null, contradicts: ["F1"] }] } }),
      });
      const r = await api.remember.submit({ dataset: ds.name, text: "In 2024 Alice moved to Berlin.", wait: true });
      expect(r.status).toBe("succeeded");
      expect(calls.resolution).toBe(1);
      const asked = fake.requests.filter((q) => (q.body as ChatRequestBody).response_format && JSON.stringify(q.body).includes('"resolution"')).at(-1);
      expect(JSON.stringify(asked?.body)).toContain("Alice lives in Paris.");
      const rows = await app.database.db.select().from(facts).where(eq(facts.datasetId, ds.id));
      const paris = rows.find((f) => f.sentence === "Alice lives in Paris.")!;
      expect(paris.expiredAt).toBeInstanceOf(Date);
      expect(paris.invalidatedRunId).toBe(r.rememberRunId);
    });

    it("retries a 500 and succeeds", async () => {
      reset({ summary: (n) => (n === 1 ? { status: 500, headers: { "retry-after-ms": "10" } } : { content: { summary: "retried" } }) });
      const { app } = ctx();
      const ds = await freshDataset(app);
      const r = await callerFor(app).remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true });
      expect(r.status).toBe("succeeded");
      expect(calls.summary).toBe(2);
    });

    it("a classifier that fails does not lose the text: the run succeeds, flagged, and the text is chunked as usual", async () => {
      reset({ complexity: () => ({ status: 400, body: { error: { message: "no such model", type: "invalid_request_error" } } }) });
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      const r = await api.remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true });
      expect(r.status).toBe("succeeded");
      const run = await api.remember.get({ id: r.rememberRunId });
      expect(run.flagged).toBe(true);
      expect(run.stages.find((s) => s.name === "classify_complexity")).toMatchObject({ status: "failed", error: expect.stringMatching(/no such model/) });
      expect(run.stages.find((s) => s.name === "store")?.status).toBe("succeeded");
      const flagged = await api.runs.remember.list({ dataset: ds.name, flagged: true });
      expect(flagged.items.map((x) => x.id)).toEqual([r.rememberRunId]);
    });

    it("a model outage is weather: the run is queued again with a backoff and succeeds when the model is back, stored once", async () => {
      let down = true;
      reset({ graph: () => (down ? { status: 503, body: { error: { message: "overloaded (fake)", type: "server_error" } } } : { content: graph }) });
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      const { rememberRunId: id } = await api.remember.submit({ dataset: ds.name, text: "Alice lives in Paris." });
      // two failed attempts, each queued again
      for (let i = 0; i < 400; i++) {
        const run = await api.remember.get({ id });
        if (run.attempts.length >= 2) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      const waiting = await api.remember.get({ id });
      expect(waiting.status).not.toBe("failed");
      expect(waiting.attempts.slice(0, 2)).toMatchObject([
        { attempt: 1, kind: "transient", error: expect.stringMatching(/HTTP 503/) },
        { attempt: 2, kind: "transient", error: expect.stringMatching(/HTTP 503/) },
      ]);
      down = false;
      expect(await app.remember.waitFor(id, 20_000)).toEqual({ status: "succeeded", error: null });
      const run = await api.remember.get({ id });
      expect(run.attempt).toBe(run.attempts.length + 1);
      expect(run.stages.find((s) => s.name === "extract_graph")?.status).toBe("succeeded");
      expect(await app.database.db.select().from(facts).where(eq(facts.datasetId, ds.id))).toHaveLength(1);
    });

    it("output cut off at its length limit is retried, not failed", async () => {
      reset({ graph: (n) => (n === 1 ? { content: '{"entities": [{"name": "Ali', finishReason: "length" } : { content: graph }) });
      const { app } = ctx();
      const ds = await freshDataset(app);
      const r = await callerFor(app).remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true });
      expect(r.status).toBe("succeeded");
      const run = await callerFor(app).remember.get({ id: r.rememberRunId });
      expect(run.attempts).toMatchObject([{ attempt: 1, kind: "transient", error: expect.stringMatching(/cut off at its length limit/) }]);
    });

    it("a permanent model error (HTTP 400) fails the run at once", async () => {
      reset({ graph: () => ({ status: 400, body: { error: { message: "context length exceeded (fake)", type: "invalid_request_error" } } }) });
      const { app } = ctx();
      const ds = await freshDataset(app);
      const r = await callerFor(app).remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true });
      expect(r.status).toBe("failed");
      expect(r.error).toMatch(/HTTP 400.*context length exceeded/);
      const run = await callerFor(app).remember.get({ id: r.rememberRunId });
      expect(run).toMatchObject({ attempt: 1, attempts: [{ attempt: 1, kind: "permanent" }] });
      expect(calls.graph).toBe(1);
    });

    it("fails the stage with a clear error on a malformed answer, leaving nothing stored and no stage started", async () => {
      reset({ graph: () => "this is not JSON" });
      const { app } = ctx();
      const ds = await freshDataset(app);
      const api = callerFor(app);
      const r = await api.remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true });
      expect(r.status).toBe("failed");
      expect(r.error).toMatch(/malformed JSON from model/);
      const run = await api.remember.get({ id: r.rememberRunId });
      expect(run.stages.find((s) => s.name === "extract_graph")).toMatchObject({ status: "failed" });
      expect(run.stages.some((s) => s.status === "started")).toBe(false);
      expect(run.stages.find((s) => s.name === "store")?.status).toBe("not_started");
      const failed = await app.database.db.select().from(inferences).where(eq(inferences.datasetId, ds.id));
      expect(failed.find((x) => x.stage === "extract_graph")?.error).toMatch(/malformed JSON/);
      expect(await app.database.db.select().from(entities).where(eq(entities.datasetId, ds.id))).toEqual([]);
    });
  },
  {
    env: () => ({
      GB_MODELS: "openai",
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: fake.url,
      GB_MODEL_MAX_RETRIES: "2",
      GB_MODEL_TIMEOUT_MS: "5000",
      GB_REMEMBER_RETRY_BASE_MS: "50",
      GB_REMEMBER_RETRY_MAX_MS: "200",
    }),
  },
);
