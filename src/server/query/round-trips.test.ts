import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { callerFor } from "../../test/callers";
import { freshDataset, testEnv } from "../../test/db";
import { type App, createApp } from "../app";
import { LOCAL_CALLER } from "../auth/caller";
import { callerForKey, createApiKey } from "../auth/keys";
import { openDatabase } from "../db/client";
import { queryRows } from "../db/rows";
import { createScratchDatabase } from "../db/scratch";
import { aliceInParisChat, fakeEmbedding, startFakeOpenAI } from "../../test/fake-openai";

/*
 * The statements one query.ask sends to the Postgres server, counted as the driver sends them
 * (#16: few round trips). The run log's row, the stages' outputs and the model calls' records go
 * in one statement as the call ends; the whole call stays within the count measured when that
 * was built, so that a statement added to the hot path fails here. Postgres server only: the
 * count is of its round trips (PGlite's are calls in the same process).
 */
const url = inject("pgUrl");
const template = inject("pgTemplate");

/**
 * statements of one query.ask by the local caller once the process is warm: the question's term
 * weights, the lists' one (every list and the place the question may name: query/retrieve.ts),
 * the run log's one. 16 before the run log went to one statement, 9 before the dataset's lookup
 * was cached (db/lookups.ts), 7 before the lists went in one statement. #16 asks for at most 4.
 */
const MOST_STATEMENTS = 3;
/** the statistics upkeep's statements (db/maintenance.ts, every 5 s in every process): not the call's */
const MAINTENANCE = /^\s*(ANALYZE|EXPLAIN)\b|pg_class|FROM gb_remember_runs WHERE status IN|^SELECT count\(\*\)::int AS n FROM \(SELECT 1 FROM/i;

if (!url || !template) {
  describe("query round trips", () => {
    it.skip("needs TEST_DATABASE_URL (a Postgres server)", () => {});
  });
  console.log("query round trips: not run, TEST_DATABASE_URL is unset");
} else {
  describe("query round trips [postgres]", () => {
    // the remembering app (its queue's polls are its own statements), and the asking one, counted
    let writer: App;
    let app: App;
    let drop: () => Promise<void>;
    let scratchUrl: string;
    const sent: string[] = [];
    beforeAll(async () => {
      const scratch = await createScratchDatabase(url, "gb_rt", { template });
      drop = scratch.drop;
      scratchUrl = scratch.url;
      writer = await createApp({ env: testEnv(), database: await openDatabase({ driver: "postgres", url: scratch.url, max: 2 }), worker: true, pollMs: 10 });
      const database = await openDatabase({ driver: "postgres", url: scratch.url, max: 4, onStatement: (s) => sent.push(s) });
      app = await createApp({ env: testEnv(), database, worker: false });
    });
    afterAll(async () => {
      await app?.close();
      await writer?.close();
      await drop?.();
    });

    it("one query.ask: its run log, outputs and model records in one statement, the call within the count", async () => {
      const ds = await freshDataset(writer);
      for (const text of ["Dana lives in Lisbon and teaches maths.", "Dana's brother Eli works at the harbour in Porto."]) {
        expect((await callerFor(writer).remember.submit({ dataset: ds.name, text, wait: true })).status).toBe("succeeded");
      }
      const api = callerFor(app);
      await api.query.ask({ dataset: ds.name, question: "Where does Dana live?" }); // warm
      sent.length = 0;
      const r = await api.query.ask({ dataset: ds.name, question: "Where does Eli work?" });
      const statements = sent.filter((s) => !MAINTENANCE.test(s));
      const runLog = statements.filter((s) => /gb_query_runs|gb_query_run_stage_outputs|gb_inferences/.test(s));
      expect(runLog, runLog.map((s) => s.slice(0, 120)).join("\n")).toHaveLength(1);
      expect(runLog[0]).toMatch(/^WITH w0 AS \(insert into "gb_query_runs"/i);
      // the dataset came from this process's cache
      expect(statements.filter((s) => /from "datasets"/.test(s))).toEqual([]);
      expect(statements.length, statements.map((s) => s.slice(0, 80)).join("\n")).toBeLessThanOrEqual(MOST_STATEMENTS);
      // the lists and the place the question names ("Eli": a proper name) in one
      const lists = statements.filter((s) => s.includes('"part_chunks_text" AS MATERIALIZED'));
      expect(lists).toHaveLength(1);
      expect(lists[0]).toMatch(/"part_place" AS MATERIALIZED/);
      // and what it wrote is the run as the API shows it: five stages, the outputs, the answer's model call
      const run = await api.runs.query.get({ id: r.queryRunId });
      expect(run.status).toBe("succeeded");
      expect(run.stages.map((s: { name: string; status: string }) => `${s.name}:${s.status}`)).toEqual([
        "embed_question:skipped",
        "retrieve_graph:succeeded",
        "detect_geo:skipped",
        "nearby_geo:skipped",
        "query:succeeded",
      ]);
      const outputs = await api.runs.query.outputs({ id: r.queryRunId });
      expect(outputs.map((o) => o.stage).sort()).toEqual(["query", "retrieve_graph"]);
      const inferenceIds = run.stages.find((s: { name: string }) => s.name === "query")!.inferenceIds as string[];
      expect(inferenceIds).toHaveLength(1);
      console.log(`query.ask: ${statements.length} statements on the Postgres server`);
    });

    it("the lists' and the run log's statements are planned once per connection (genericDb), the term weights' for their values", async () => {
      const ds = await freshDataset(writer);
      expect((await callerFor(writer).remember.submit({ dataset: ds.name, text: "Mara keeps bees in Evora.", wait: true })).status).toBe("succeeded");
      // questions asked one after another: genericDb (whose connections open as they are first
      // used) opens one, so its prepared statements are those of that one session
      const one = await openDatabase({ driver: "postgres", url: scratchUrl, max: 4 });
      const asking = await createApp({ env: testEnv(), database: one, worker: false });
      try {
        for (const question of ["Who keeps bees?", "Where does Mara live?", "What does Mara keep?"]) await callerFor(asking).query.ask({ dataset: ds.name, question });
        const prepared = (db: typeof one.db) =>
          queryRows<{ statement: string; generic_plans: number; custom_plans: number }>(db, sql`SELECT statement, generic_plans::int, custom_plans::int FROM pg_prepared_statements`);
        const generic = await prepared(one.genericDb);
        const kinds = {
          lists: { re: /"part_chunks_text" AS MATERIALIZED/, once: true },
          runLog: { re: /^WITH w0 AS \(insert into "gb_query_runs"/i, once: true },
          weights: { re: /^SELECT l\.lexeme, s\.df, s\.bdf/, once: false },
        };
        for (const [kind, { re, once }] of Object.entries(kinds)) {
          const onGeneric = generic.filter((r) => re.test(r.statement));
          if (!once) {
            expect(onGeneric, `${kind} on genericDb`).toEqual([]);
            continue;
          }
          expect(onGeneric.length, `${kind} on genericDb`).toBeGreaterThan(0);
          // planned without the values, never for them
          for (const r of onGeneric) expect({ kind, custom: r.custom_plans, generic: r.generic_plans > 0 }).toEqual({ kind, custom: 0, generic: true });
        }
      } finally {
        await asking.close();
      }
    });

    it("with semantic embeddings: the text lists are read while the model embeds the question, the vector lists after, within the count", async () => {
      // a model server whose embeddings take 200 ms, as a real one takes tens of milliseconds
      let embedded = 0;
      const fake = await startFakeOpenAI({
        chat: aliceInParisChat(() => ({ content: { answer: "Alice lives in Paris [1].", cited: [1] } })),
        // every text that names Alice near the question (fakeEmbedding's neighbours depend on the exact text)
        embeddings: (text, dimensions) => {
          embedded = performance.now();
          return text.includes("Alice") ? Array.from({ length: dimensions }, (_, i) => (i === 0 ? 1 : 0)) : fakeEmbedding(text, dimensions);
        },
        embeddingDelayMs: 200,
      });
      // no copy of the vector cells: its refreshes are statements of their own, in the background
      const env = testEnv({ GB_MODELS: "openai", OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: fake.url, GB_EMBEDDING_DIMENSIONS: "8", GB_VECTOR_MEMO_MB: "0" });
      const timed: { text: string; at: number }[] = [];
      // a database of its own: the other tests' remembering app (builtin models) would take its remember off the queue
      const own = await createScratchDatabase(url!, "gb_rt", { template });
      const remembering = await createApp({ env, database: await openDatabase({ driver: "postgres", url: own.url, max: 2 }), worker: true, pollMs: 10 });
      const asking = await createApp({
        env,
        database: await openDatabase({ driver: "postgres", url: own.url, max: 4, onStatement: (text) => timed.push({ text, at: performance.now() }) }),
        worker: false,
      });
      try {
        const ds = await freshDataset(remembering);
        expect((await callerFor(remembering).remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true })).status).toBe("succeeded");
        const api = callerFor(asking);
        await api.query.ask({ dataset: ds.name, question: "Who lives in Paris?" }); // warm
        timed.length = 0;
        const r = await api.query.ask({ dataset: ds.name, question: "Where does Alice live?" });
        expect(r.answer).toBe("Alice lives in Paris [1].");
        const statements = timed.filter((s) => !MAINTENANCE.test(s.text));
        expect(statements.length, statements.map((s) => s.text.slice(0, 80)).join("\n")).toBeLessThanOrEqual(MOST_STATEMENTS + 1);
        const text = statements.filter((s) => s.text.includes('"part_chunks_text" AS MATERIALIZED'));
        const vector = statements.filter((s) => s.text.includes('"part_facts_vector" AS MATERIALIZED'));
        expect([text.length, vector.length]).toEqual([1, 1]);
        // each list in one of them, the place the question names with the text lists
        expect(text[0]!.text).not.toMatch(/"part_(facts|chunks)_vector"/);
        expect(text[0]!.text).toMatch(/"part_place" AS MATERIALIZED/);
        expect(vector[0]!.text).toMatch(/"part_chunks_vector" AS MATERIALIZED/);
        expect(vector[0]!.text).not.toMatch(/"part_(facts|chunks)_text"/);
        // sent before the model answered the embedding, the vector lists after it
        expect(text[0]!.at).toBeLessThan(embedded);
        expect(vector[0]!.at).toBeGreaterThan(embedded);
        const [receipt] = await api.runs.query.outputs({ id: r.queryRunId, stage: "retrieve_graph" });
        const lists = (receipt?.output as { lists: Record<string, number> }).lists;
        expect(lists.facts_text).toBeGreaterThan(0);
        expect(lists.facts_vector).toBeGreaterThan(0);
        expect((receipt?.output as { vectors?: string }).vectors).toBeUndefined();
      } finally {
        await asking.close();
        await remembering.close();
        await own.drop();
        await fake.close();
      }
    });

    it("an API key is looked up once, then from this process's cache", async () => {
      const { secret } = await createApiKey({ db: app.database.db, caller: LOCAL_CALLER, input: { name: "rt", role: "member" } });
      sent.length = 0;
      for (let i = 0; i < 3; i++) expect(await callerForKey(app.database.db, secret)).not.toBeNull();
      // one read of the key (its last use is written apart, at most once a minute)
      expect(sent.filter((s) => /^select[\s\S]*gb_api_keys/i.test(s))).toHaveLength(1);
    });
  });
}
