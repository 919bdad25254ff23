import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDriver, freshDataset, testEnv } from "../../test/db";
import { LOCAL_CALLER } from "../../server/auth/caller";
import { type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai";
import { inferences } from "../db/schema";
import { run, stage } from "../pipeline";
import { createRunLog } from "../runs/run-log";
import { getInference, getRun } from "../runs/get";
import { createProvider, resolveStageOptions } from "./factory";
import { recordedModels } from "./record";
import type { ModelProvider } from "./types";

/*
 * Every model call, of either provider, is a gb_inferences row filed under the run and stage that
 * made it, and its id lands in that stage's _inference_ids with no code in the stage.
 */
describeEachDriver("inference recording", (ctx) => {
  let fake: FakeOpenAI;
  let openai: ModelProvider;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    openai = createProvider(
      testEnv({ GB_MODELS: "openai", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: fake.url, GB_MODEL_MAX_RETRIES: "0", GB_MODEL_TIMEOUT_MS: "2000" }),
    );
  });
  afterAll(() => fake.close());

  async function answerQuestion(provider: ModelProvider, stageOptions = {}) {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const log = await createRunLog(app.database.db, "query", { datasetId: ds.id, userId: null, params: {} });
    const models = recordedModels(provider, { db: app.database.db, datasetId: ds.id, runKind: "query", runId: log.id, stageOptions });
    let error: Error | null = null;
    try {
      await run(
        [
          stage<null>({
            name: "retrieve_graph",
            // two calls in parallel, inside promises the stage starts
            run: async () => void (await Promise.all([models.embed({ texts: ["where does alice live"] }), models.embed({ texts: ["paris"] })])),
          }),
          stage<null>({ name: "detect_geo", enabled: () => false, run: () => {} }),
          stage<null>({ name: "nearby_geo", enabled: () => false, run: () => {} }),
          stage<null>({
            name: "query",
            run: async () => {
              await models.answer({ question: "Where does Alice live?", context: [{ n: 1, text: "Alice lives in Paris." }] });
            },
          }),
        ],
        null,
        log,
      );
    } catch (e) {
      error = e as Error;
    }
    await log.finish(error);
    const r = await getRun({ db: app.database.db, scope: LOCAL_CALLER, kind: "query", id: log.id ?? "" });
    const rows = await app.database.db.select().from(inferences).where(and(eq(inferences.datasetId, ds.id), eq(inferences.runId, log.id ?? "")));
    return { run: r, rows, error };
  }

  it("files builtin calls under their stages", async () => {
    const { run: r, rows } = await answerQuestion(createProvider(testEnv()));
    expect(r.status).toBe("succeeded");
    const byStage = Object.fromEntries(r.stages.map((s) => [s.name, s.inferenceIds]));
    expect(byStage.retrieve_graph).toHaveLength(2);
    expect(byStage.query).toHaveLength(1);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.provider).toBe("builtin");
      expect(row.runKind).toBe("query");
      expect(byStage[row.stage ?? ""]).toContain(row.id);
      expect(row.latencyMs).toBeGreaterThanOrEqual(0);
      expect(row.error).toBeNull();
    }
    const answer = rows.find((row) => row.task === "answer");
    expect(answer?.model).toBe("builtin-answer-v1");
    expect(answer?.response).toMatchObject({ cited: [1] });
    expect(answer?.request).toMatchObject({ question: "Where does Alice live?" });
  });

  it("files openai calls with tokens, the model asked per stage, and what was sent", async () => {
    fake.setChat({ content: { answer: "Alice lives in Paris [1].", cited: [1] }, usage: { prompt_tokens: 42, completion_tokens: 7 } });
    const stageOptions = resolveStageOptions({ query: { model: "gpt-default" } }, { query: { model: "gpt-from-request", reasoning: "low" } });
    const before = fake.requests.length;
    const { run: r, rows } = await answerQuestion(openai, stageOptions);
    expect(r.status).toBe("succeeded");
    const chat = fake.requests.slice(before).find((q) => q.path.endsWith("/chat/completions"));
    expect(chat?.body).toMatchObject({ model: "gpt-from-request", reasoning_effort: "low" });
    const answer = rows.find((row) => row.task === "answer");
    expect(answer).toMatchObject({ provider: "openai", model: "gpt-from-request", tokensIn: 42, tokensOut: 7, stage: "query", error: null });
    expect(r.stages.find((s) => s.name === "query")?.inferenceIds).toEqual([answer?.id]);
    const { app } = ctx();
    const viaApi = await getInference({ db: app.database.db, scope: LOCAL_CALLER, id: answer?.id ?? "" });
    expect(viaApi.response).toEqual(answer?.response);
  });

  it("files a failed call with its error, and the stage fails with it", async () => {
    fake.setChat({ content: "this is not json" });
    const { run: r, rows, error } = await answerQuestion(openai);
    expect(error?.message).toMatch(/malformed JSON/);
    expect(r.status).toBe("failed");
    const query = r.stages.find((s) => s.name === "query");
    expect(query?.status).toBe("failed");
    const failed = rows.find((row) => row.task === "answer");
    expect(failed?.error).toMatch(/malformed JSON/);
    expect(failed?.response).toBeTruthy(); // the raw answer is kept for the operator
    expect(query?.inferenceIds).toEqual([failed?.id]);
  });

  it("batched: records go in together, in the background, all in by settle, and a failed write is logged", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const logged: string[] = [];
    const models = recordedModels(createProvider(testEnv()), {
      db: app.database.db,
      datasetId: ds.id,
      runKind: null,
      runId: null,
      batched: true,
      log: (message) => logged.push(message),
    });
    const texts = Array.from({ length: 12 }, (_, i) => `Person${i} lives in Town${i}.`);
    await Promise.all(texts.map((text) => models.summarize({ text })));
    await models.settle();
    const rows = await app.database.db.select().from(inferences).where(eq(inferences.datasetId, ds.id));
    expect(rows.map((r) => (r.request as { text: string }).text).sort()).toEqual([...texts].sort());
    expect(logged).toEqual([]);

    // a record the database refuses (a dataset id that is no uuid) fails its batch and is
    // logged; the call itself has its answer
    const orphan = recordedModels(createProvider(testEnv()), {
      db: app.database.db,
      datasetId: "not-a-uuid",
      runKind: null,
      runId: null,
      batched: true,
      log: (message) => logged.push(message),
    });
    const summary = await orphan.summarize({ text: "Ann lives in Oslo." });
    expect(summary.summary).toContain("Ann");
    await orphan.settle();
    expect(logged).toEqual(["1 inference records could not be written"]);
  });

  it("files nothing under a stage for a call made outside any pipeline", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const models = recordedModels(createProvider(testEnv()), { db: app.database.db, datasetId: ds.id, runKind: null, runId: null });
    await models.summarize({ text: "Alice lives in Paris. She likes cats." });
    const rows = await app.database.db.select().from(inferences).where(eq(inferences.datasetId, ds.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ stage: null, runId: null, task: "summarize" });
  });
});

it("merges per-stage options layer by layer, field by field", () => {
  expect(
    resolveStageOptions(
      { extract_graph: { model: "a", reasoning: "low" }, query: { model: "q" } },
      undefined,
      { extract_graph: { model: "b" } },
    ),
  ).toEqual({ extract_graph: { model: "b", reasoning: "low" }, query: { model: "q" } });
});
