import { randomUUID } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { expect, it, vi } from "vitest";
import { describeEachDriver, freshDataset } from "../../test/db";
import { LOCAL_CALLER } from "../../server/auth/caller";
import { queryRows } from "../db/rows";
import { inferences, queryRuns, queryStageOutputs } from "../db/schema";
import { each, output, run, stage, Stop } from "../pipeline";
import { listOutputs } from "./outputs";
import { createDeferredRunLog, createRunLog, nullRunLog } from "./run-log";
import { getRun } from "./get";

type Job = { fail?: "retrieve" | "detect"; stop?: boolean; items?: number[] };

// The query stage names, in a pipeline shaped for the tests (the real one is #4's).
const steps = [
  stage<Job>({ name: "embed_question", policy: "advisory", enabled: () => false, run: () => {} }),
  stage<Job>({ name: "retrieve_graph", run: (j) => (j.fail === "retrieve" ? Promise.reject(new Error("no index")) : j.stop ? Stop : undefined) }),
  stage<Job>({
    name: "detect_geo",
    policy: "advisory",
    run: (j) => {
      if (j.fail === "detect") throw new Error("geocoder down");
    },
  }),
  stage<Job>({ name: "nearby_geo", policy: "advisory", enabled: () => false, run: () => {} }),
  stage<Job>({ name: "query", run: () => {} }),
];

describeEachDriver("run log", (ctx, driver) => {
  async function execute(job: Job) {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const log = await createRunLog(app.database.db, "query", { datasetId: ds.id, userId: "u1", params: { q: "x" } });
    let error: Error | null = null;
    try {
      await run(steps, job, log);
    } catch (e) {
      error = e as Error;
    }
    await log.finish(error);
    return { run: await getRun({ db: app.database.db, scope: LOCAL_CALLER, kind: "query", id: log.id ?? "" }), error, ds };
  }
  const statuses = (r: Awaited<ReturnType<typeof execute>>["run"]) => Object.fromEntries(r.stages.map((s) => [s.name, s.status]));

  it("records a succeeded run: every stage done or skipped, times set", async () => {
    const { run: r } = await execute({});
    expect(r.status).toBe("succeeded");
    expect(r.params).toEqual({ q: "x" });
    expect(r.userId).toBe("u1");
    expect(statuses(r)).toEqual({ embed_question: "skipped", retrieve_graph: "succeeded", detect_geo: "succeeded", nearby_geo: "skipped", query: "succeeded" });
    const retrieve = r.stages[1];
    expect(retrieve?.startedAt).toBeInstanceOf(Date);
    expect(retrieve?.finishedAt!.getTime()).toBeGreaterThanOrEqual(retrieve!.startedAt!.getTime());
    expect(r.finishedAt).toBeInstanceOf(Date);
    expect(r.flagged).toBe(false);
  });

  it("records a fatal failure: the run failed with its error, later stages not_started", async () => {
    const { run: r, error } = await execute({ fail: "retrieve" });
    expect(error?.message).toBe("no index");
    expect(r.status).toBe("failed");
    expect(r.error).toBe("no index");
    expect(statuses(r)).toEqual({ embed_question: "skipped", retrieve_graph: "failed", detect_geo: "not_started", nearby_geo: "not_started", query: "not_started" });
    expect(r.stages[1]?.error).toBe("no index");
  });

  it("records an advisory failure on the stage of a succeeded, flagged run", async () => {
    const { run: r } = await execute({ fail: "detect" });
    expect(r.status).toBe("succeeded");
    expect(r.flagged).toBe(true);
    expect(r.stages[2]).toMatchObject({ name: "detect_geo", status: "failed", error: "geocoder down" });
    expect(r.stages[4]?.status).toBe("succeeded");
  });

  it("records a Stop: the stage succeeded, the rest skipped", async () => {
    const { run: r } = await execute({ stop: true });
    expect(r.status).toBe("succeeded");
    expect(statuses(r)).toEqual({ embed_question: "skipped", retrieve_graph: "succeeded", detect_geo: "skipped", nearby_geo: "skipped", query: "skipped" });
  });

  it("shows a run in progress: the row is updated at every transition", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const log = await createRunLog(app.database.db, "query", { datasetId: ds.id, userId: null, params: {} });
    const seen: string[] = [];
    const watch = stage<Job>({
      name: "detect_geo",
      run: async () => {
        const r = await getRun({ db: app.database.db, scope: LOCAL_CALLER, kind: "query", id: log.id ?? "" });
        const st = (name: string) => r.stages.find((x) => x.name === name)?.status;
        seen.push(`${r.status}:${st("retrieve_graph")}:${st("detect_geo")}:${st("query")}`);
      },
    });
    await run([steps[1]!, watch, steps[4]!], {}, log);
    await log.finish(null);
    expect(seen).toEqual(["started:succeeded:started:not_started"]);
  });

  it("keeps a stage's first start time across Each items and its first error", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const log = await createRunLog(app.database.db, "query", { datasetId: ds.id, userId: null, params: {} });
    const starts: number[] = [];
    const pipeline = [
      each<Job, number>((j) => j.items ?? [], [
        stage({
          name: "retrieve_graph",
          policy: "advisory",
          run: async ({ item }) => {
            starts.push(Date.now());
            await new Promise((r) => setTimeout(r, 15));
            if (item === 1) throw new Error(`item ${item} failed`);
          },
        }),
      ]),
      stage<Job>({ name: "detect_geo", run: () => {} }),
      stage<Job>({ name: "nearby_geo", run: () => {} }),
      stage<Job>({ name: "query", run: () => {} }),
    ];
    await run(pipeline, { items: [0, 1, 2] }, log);
    await log.finish(null);
    const r = await getRun({ db: app.database.db, scope: LOCAL_CALLER, kind: "query", id: log.id ?? "" });
    const retrieve = r.stages.find((x) => x.name === "retrieve_graph")!;
    expect(retrieve.status).toBe("failed");
    expect(retrieve.error).toBe("item 1 failed");
    // the first item's start, not a later one's
    expect(retrieve.startedAt!.getTime()).toBeLessThanOrEqual(starts[0]!);
    expect(retrieve.startedAt!.getTime()).toBeLessThan(starts[1]! - 10);
    expect(retrieve.durationMs!).toBeGreaterThanOrEqual(40);
    expect(r.flagged).toBe(true);
  });

  it("files inference ids under their stage", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const log = await createRunLog(app.database.db, "query", { datasetId: ds.id, userId: null, params: {} });
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    await log.addInference("query", ids[0]!);
    await log.addInference("query", ids[1]!);
    await log.addInference("nearby_geo", crypto.randomUUID()); // runs no model: logged, not stored
    await log.finish(null);
    const r = await getRun({ db: app.database.db, scope: LOCAL_CALLER, kind: "query", id: log.id ?? "" });
    expect(r.stages.find((s) => s.name === "query")?.inferenceIds).toEqual(ids);
  });

  it("writes a later item's start and a model call's id soon, together, without a finish", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const log = await createRunLog(app.database.db, "query", { datasetId: ds.id, userId: null, params: {} });
    const read = () => getRun({ db: app.database.db, scope: LOCAL_CALLER, kind: "query", id: log.id ?? "" });
    await log.start("retrieve_graph"); // a first start is written before the stage runs
    expect((await read()).stages.find((s) => s.name === "retrieve_graph")?.status).toBe("started");
    log.done("retrieve_graph", null);
    await log.start("retrieve_graph"); // the second item: coalesced
    const id = crypto.randomUUID();
    await log.addInference("query", id);
    await vi.waitFor(
      async () => {
        const r = await read();
        expect(r.stages.find((s) => s.name === "query")?.inferenceIds).toEqual([id]);
        expect(r.stages.find((s) => s.name === "retrieve_graph")?.status).toBe("started");
      },
      { timeout: 5_000, interval: 50 },
    );
    await log.finish(null);
    const ended = await read();
    expect(ended.status).toBe("succeeded");
    expect(ended.stages.find((s) => s.name === "retrieve_graph")?.status).toBe("failed"); // left started: closed by finish
  });

  it("does not write the row again and again while items keep ending: a change goes with the next write, within a second", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const log = await createRunLog(db, "remember", { datasetId: ds.id, userId: null, params: {} }, { outputsWith: "store" });
    const tag = ds.id.replaceAll("-", "");
    await db.execute(sql.raw(`CREATE TABLE gb_test_writes_${tag} (at timestamptz)`));
    await db.execute(sql.raw(`CREATE FUNCTION gb_test_count_${tag}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO gb_test_writes_${tag} VALUES (now()); RETURN NEW; END $$`));
    await db.execute(sql.raw(`CREATE TRIGGER gb_test_count_${tag} BEFORE UPDATE ON gb_remember_runs FOR EACH ROW WHEN (OLD.dataset_id = '${ds.id}') EXECUTE FUNCTION gb_test_count_${tag}()`));
    try {
      type It = { job: Job; item: number; index: number };
      const tick = () => new Promise((r) => setTimeout(r, 2));
      const items = Array.from({ length: 500 }, (_, i) => i);
      const started = Date.now();
      await run(
        [each<Job, number>((j) => j.items ?? [], [stage<It>({ name: "extract_graph", run: async () => (await tick(), output({})) }), stage<It>({ name: "store", run: async () => (await tick(), output({})) })], (i) => i)],
        { items },
        log,
      );
      await log.finish(null);
      const seconds = (Date.now() - started) / 1000;
      const [{ n }] = (await queryRows<{ n: number }>(db, sql.raw(`SELECT count(*)::int AS n FROM gb_test_writes_${tag}`))) as [{ n: number }];
      // the two stages' first starts, one coalesced write a second, the finish (and the slack of a timer at each end)
      expect(n).toBeLessThanOrEqual(2 + Math.ceil(seconds) + 1 + 2);
      const r = await getRun({ db, scope: LOCAL_CALLER, kind: "remember", id: log.id ?? "" });
      expect(r.stages.find((x) => x.name === "store")?.status).toBe("succeeded");
    } finally {
      await db.execute(sql.raw(`DROP TRIGGER gb_test_count_${tag} ON gb_remember_runs`));
      await db.execute(sql.raw(`DROP FUNCTION gb_test_count_${tag}()`));
      await db.execute(sql.raw(`DROP TABLE gb_test_writes_${tag}`));
    }
  });

  it("closes a stage left started when the call ends", async () => {
    const { app } = ctx();
    const ds = await freshDataset(app);
    const log = await createRunLog(app.database.db, "query", { datasetId: ds.id, userId: null, params: {} });
    await log.start("retrieve_graph");
    await log.finish(new Error("worker shut down"));
    const r = await getRun({ db: app.database.db, scope: LOCAL_CALLER, kind: "query", id: log.id ?? "" });
    expect(r.status).toBe("failed");
    expect(r.stages.find((x) => x.name === "retrieve_graph")).toMatchObject({ status: "failed", error: "the call ended while this stage was running" });
  });

  it("a deferred log writes nothing while the call runs, then the row, its outputs and model records together", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const log = createDeferredRunLog(db, "query", { datasetId: ds.id, userId: "u1", params: { q: "x" } });
    const rowCount = async () => (await db.select().from(queryRuns).where(and(eq(queryRuns.datasetId, ds.id), eq(queryRuns.id, log.id)))).length;
    const steps2 = [
      stage<Job>({ name: "embed_question", policy: "advisory", enabled: () => false, run: () => {} }),
      stage<Job>({ name: "retrieve_graph", run: async () => {
        expect(await rowCount()).toBe(0);
        return output({ lists: 3 });
      } }),
      stage<Job>({ name: "detect_geo", policy: "advisory", run: () => { throw new Error("geocoder down"); } }),
      stage<Job>({ name: "nearby_geo", policy: "advisory", enabled: () => false, run: () => {} }),
      stage<Job>({ name: "query", run: () => {
        const id = randomUUID();
        log.keepInference({ id, datasetId: ds.id, runKind: "query", runId: log.id, stage: "query", provider: "builtin", model: "m", task: "answer", request: {}, response: {}, latencyMs: 1, createdAt: new Date() });
        log.addInference("query", id);
        return output({ answer: "Paris" });
      } }),
    ];
    await run(steps2, {}, log);
    expect(await rowCount()).toBe(0);
    expect(await log.finish(null)).toBe("written");
    const r = await getRun({ db, scope: LOCAL_CALLER, kind: "query", id: log.id });
    expect(r.status).toBe("succeeded");
    expect(r.stages.map((x) => `${x.name}:${x.status}`)).toEqual(["embed_question:skipped", "retrieve_graph:succeeded", "detect_geo:failed", "nearby_geo:skipped", "query:succeeded"]);
    expect(r.stages.find((x) => x.name === "detect_geo")?.error).toMatch(/geocoder down/);
    const outs = await listOutputs({ db, scope: LOCAL_CALLER, kind: "query", id: log.id });
    expect(outs.map((o) => [o.stage, o.output])).toEqual(expect.arrayContaining([["retrieve_graph", { lists: 3 }], ["query", { answer: "Paris" }]]));
    const recs = await db.select().from(inferences).where(and(eq(inferences.datasetId, ds.id), eq(inferences.runId, log.id)));
    expect(recs.map((x) => x.stage)).toEqual(["query"]);
    expect(r.stages.find((x) => x.name === "query")?.inferenceIds).toEqual([recs[0]!.id]);
  });

  it("a deferred log whose write is refused logs it and never fails the call; a failed call's row says why", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const logged: string[] = [];
    const refused = createDeferredRunLog(db, "query", { datasetId: ds.id, userId: null, params: {} }, { log: (m) => logged.push(m) });
    const fn = `gb_test_refuse_${ds.id.replaceAll("-", "")}`;
    await db.execute(sql.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'rejected by test'; END $$`));
    await db.execute(sql.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON gb_query_runs FOR EACH ROW WHEN (NEW.dataset_id = '${ds.id}') EXECUTE FUNCTION ${fn}()`));
    try {
      const result = await run(steps, {}, refused);
      expect(result.stoppedBy).toBeNull();
      expect(await refused.finish(null)).toBe("failed");
      expect(logged).toEqual([expect.stringMatching(/run log query .* write failed/)]);
    } finally {
      await db.execute(sql.raw(`DROP TRIGGER ${fn} ON gb_query_runs`));
      await db.execute(sql.raw(`DROP FUNCTION ${fn}()`));
    }
    // nothing half-written: no outputs without their row
    expect(await db.select().from(queryStageOutputs).where(and(eq(queryStageOutputs.datasetId, ds.id), eq(queryStageOutputs.runId, refused.id)))).toEqual([]);
    const failing = createDeferredRunLog(db, "query", { datasetId: ds.id, userId: null, params: {} });
    let error: Error | null = null;
    try {
      await run(steps, { fail: "retrieve" }, failing);
    } catch (e) {
      error = e as Error;
    }
    expect(await failing.finish(error)).toBe("written");
    const r = await getRun({ db, scope: LOCAL_CALLER, kind: "query", id: failing.id });
    expect(r).toMatchObject({ status: "failed", error: expect.stringMatching(/no index/) });
    expect(r.stages.find((x) => x.name === "retrieve_graph")).toMatchObject({ status: "failed" });
  });

  it("deferred logs that end together are written in one statement; when that is refused, each alone, and the others are kept", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const other = await freshDataset(app);
    const tag = ds.id.replaceAll("-", "");
    // the INSERT statements that wrote a run of this dataset
    await db.execute(sql.raw(`CREATE TABLE gb_test_stmts_${tag} (n int)`));
    await db.execute(
      sql.raw(`CREATE FUNCTION gb_test_stmts_${tag}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        INSERT INTO gb_test_stmts_${tag} SELECT 1 WHERE EXISTS (SELECT 1 FROM new_rows WHERE dataset_id = '${ds.id}'); RETURN NULL; END $$`),
    );
    await db.execute(sql.raw(`CREATE TRIGGER gb_test_stmts_${tag} AFTER INSERT ON gb_query_runs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION gb_test_stmts_${tag}()`));
    // the other dataset's runs are refused
    const refuse = `gb_test_refuse_${other.id.replaceAll("-", "")}`;
    await db.execute(sql.raw(`CREATE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'rejected by test'; END $$`));
    await db.execute(sql.raw(`CREATE TRIGGER ${refuse} BEFORE INSERT ON gb_query_runs FOR EACH ROW WHEN (NEW.dataset_id = '${other.id}') EXECUTE FUNCTION ${refuse}()`));
    const logged: string[] = [];
    const ended = async (datasetId: string, n: number) => {
      const logs = Array.from({ length: n }, (_, i) => createDeferredRunLog(db, "query", { datasetId, userId: null, params: { i } }, { log: (m) => logged.push(m) }));
      for (const log of logs) {
        await run(steps, {}, log);
        log.output("query", null, { answer: log.id }, new Date(), new Date());
      }
      return logs;
    };
    const statements = async () => (await queryRows<{ n: number }>(db, sql.raw(`SELECT count(*)::int AS n FROM gb_test_stmts_${tag}`)))[0]!.n;
    const kept = async (ids: string[]) =>
      (await db.select({ id: queryRuns.id }).from(queryRuns).where(and(eq(queryRuns.datasetId, ds.id), inArray(queryRuns.id, ids)))).length;
    try {
      // six end together: the first is written at once, the five that ended while it was written go in one statement
      const six = await ended(ds.id, 6);
      expect(await Promise.all(six.map((l) => l.finish(null)))).toEqual(Array(6).fill("written"));
      expect(await statements()).toBe(2);
      expect(await kept(six.map((l) => l.id))).toBe(6);
      const outs = await db.select().from(queryStageOutputs).where(and(eq(queryStageOutputs.datasetId, ds.id), inArray(queryStageOutputs.runId, six.map((l) => l.id))));
      expect(new Set(outs.map((o) => o.runId)).size).toBe(6);
      // a refused run in a batch: the statement is refused, then each is written alone
      const [first, ...rest] = await ended(ds.id, 4);
      const [refused] = await ended(other.id, 1);
      const results = await Promise.all([first!, ...rest, refused!].map((l) => l.finish(null)));
      expect(results).toEqual(["written", "written", "written", "written", "failed"]);
      expect(await kept([first!, ...rest].map((l) => l.id))).toBe(4);
      expect(logged).toEqual([expect.stringMatching(new RegExp(`run log query ${refused!.id}: write failed`))]);
      expect(await db.select().from(queryRuns).where(eq(queryRuns.datasetId, other.id))).toEqual([]);
    } finally {
      await db.execute(sql.raw(`DROP TRIGGER gb_test_stmts_${tag} ON gb_query_runs`));
      await db.execute(sql.raw(`DROP FUNCTION gb_test_stmts_${tag}()`));
      await db.execute(sql.raw(`DROP TABLE gb_test_stmts_${tag}`));
      await db.execute(sql.raw(`DROP TRIGGER ${refuse} ON gb_query_runs`));
      await db.execute(sql.raw(`DROP FUNCTION ${refuse}()`));
    }
  });

  it("never fails the call when the database rejects its writes", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const logged: string[] = [];
    const log = await createRunLog(db, "query", { datasetId: ds.id, userId: null, params: {} }, {
      log: (m) => logged.push(m),
    });
    const fn = `gb_test_reject_${ds.id.replaceAll("-", "")}`;
    await db.execute(sql.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'rejected by test'; END $$`));
    await db.execute(sql.raw(`CREATE TRIGGER ${fn} BEFORE UPDATE ON gb_query_runs FOR EACH ROW WHEN (OLD.dataset_id = '${ds.id}') EXECUTE FUNCTION ${fn}()`));
    try {
      const result = await run(steps, {}, log);
      await log.finish(null);
      expect(result.stoppedBy).toBeNull();
      expect(logged.length).toBeGreaterThanOrEqual(4);
      expect(logged[0]).toMatch(/run log query .* write failed/);
      const [row] = await db.select().from(queryRuns).where(and(eq(queryRuns.datasetId, ds.id), eq(queryRuns.id, log.id ?? "")));
      expect(row?.status).toBe("started"); // nothing could be written after the insert
    } finally {
      await db.execute(sql.raw(`DROP TRIGGER ${fn} ON gb_query_runs`));
      await db.execute(sql.raw(`DROP FUNCTION ${fn}()`));
    }
  });

  it("keeps every stage's output with the item's times; with outputsWith, an item's outputs go in with that stage's", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const log = await createRunLog(db, "remember", { datasetId: ds.id, userId: null, params: {} }, { outputsWith: "store" });
    const kept = async () => (await listOutputs({ db, scope: LOCAL_CALLER, kind: "remember", id: log.id! })).map((o) => `${o.stage}:${o.itemIndex}`);
    const seen: string[][] = [];
    type It = { job: Job; item: number; index: number };
    const pipeline = [
      stage<Job>({ name: "classify_complexity", run: () => output({ simple: true }) }),
      // a stage that runs once is written at once, before the next starts
      stage<Job>({ name: "chunk_text", run: async () => void seen.push(await kept()) }),
      each<Job, number>((j) => j.items ?? [], [stage<It>({ name: "extract_graph", run: ({ item }) => output({ chunk: item }) })], (item) => item * 10),
      each<Job, number>(
        (j) => j.items ?? [],
        [
          stage<It>({
            name: "store",
            run: async ({ item }) => {
              // an item's outputs wait for its store: none of this chunk's (the earlier chunk's
              // are written behind the pipeline, by now)
              await new Promise((r) => setTimeout(r, 50));
              seen.push(await kept());
              await new Promise((r) => setTimeout(r, 5));
              return output({ stored: item });
            },
          }),
        ],
        (item) => item * 10,
      ),
    ];
    await run(pipeline, { items: [1, 2] }, log);
    await log.finish(null);
    expect(seen).toEqual([
      ["classify_complexity:0"],
      ["classify_complexity:0"],
      ["classify_complexity:0", "extract_graph:10", "store:10"],
    ]);
    const outputs = await listOutputs({ db, scope: LOCAL_CALLER, kind: "remember", id: log.id! });
    expect(outputs.map((o) => [o.stage, o.itemIndex, o.output])).toEqual([
      ["classify_complexity", 0, { simple: true }],
      ["extract_graph", 10, { chunk: 1 }],
      ["extract_graph", 20, { chunk: 2 }],
      ["store", 10, { stored: 1 }],
      ["store", 20, { stored: 2 }],
    ]);
    // the item's own times: a store item took its 5 ms, and the items follow one another
    const stores = outputs.filter((o) => o.stage === "store");
    for (const o of stores) expect(o.finishedAt.getTime() - o.startedAt.getTime()).toBeGreaterThanOrEqual(4);
    expect(stores[1]!.startedAt.getTime()).toBeGreaterThanOrEqual(stores[0]!.finishedAt.getTime());
  });

  it.each([
    ["query", {}],
    ["remember", { outputsWith: "store" }],
  ] as const)("a %s output that cannot be kept is logged and flags the run, never fails it", async (kind, options) => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const logged: string[] = [];
    const log = await createRunLog(db, kind, { datasetId: ds.id, userId: null, params: {} }, { ...options, log: (m) => logged.push(m) });
    // Postgres refuses NUL in jsonb: a real refusal of the write, on both drivers
    const name = kind === "query" ? "retrieve_graph" : "classify_complexity";
    const after = kind === "query" ? "query" : "chunk_text";
    const result = await run([stage<Job>({ name, run: () => output({ text: "a\u0000b" }) }), stage<Job>({ name: after, run: () => output("fine") })], {}, log);
    expect(await log.finish(null)).toBe("written");
    expect(result.stoppedBy).toBeNull();
    expect(logged).toEqual([`run log ${kind} ${log.id}: the outputs of ${name} could not be kept`]);
    const r = await getRun({ db, scope: LOCAL_CALLER, kind, id: log.id! });
    expect(r.status).toBe("succeeded");
    expect(r.flagged).toBe(true);
    const failed = r.stages.find((x) => x.name === name)!;
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^its output could not be kept: /);
    expect(r.stages.find((x) => x.name === after)?.status).toBe("succeeded");
    expect((await listOutputs({ db, scope: LOCAL_CALLER, kind, id: log.id! })).map((o) => o.stage)).toEqual([after]);
  });

  it("a null log does nothing and the call works", async () => {
    const spy = vi.fn();
    const result = await run(steps, {}, nullRunLog, { log: spy });
    await nullRunLog.finish(null);
    expect(result.stoppedBy).toBeNull();
    expect(spy).not.toHaveBeenCalled();
    expect(nullRunLog.id).toBeNull();
  });

  it("the raw rows agree with the API (no hidden state)", async () => {
    const { app } = ctx();
    const { run: r, ds } = await execute({ fail: "detect" });
    const rows = await queryRows<{ detect_geo_status: string; detect_geo_error: string }>(
      app.database.db,
      sql`SELECT detect_geo_status, detect_geo_error FROM gb_query_runs WHERE dataset_id = ${ds.id} AND id = ${r.id}`,
    );
    expect(rows).toEqual([{ detect_geo_status: "failed", detect_geo_error: "geocoder down" }]);
  });

  it("a large receipt and model record are stored compressed with lz4 where the server has it (migration 0027), and read back whole", async () => {
    const { app } = ctx();
    const db = app.database.db;
    const ds = await freshDataset(app);
    const [{ lz4 } = { lz4: false }] = await queryRows<{ lz4: boolean }>(
      db,
      sql`SELECT 'lz4' = ANY (enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`,
    );
    // Debian's Postgres 15 is built with lz4, PGlite is not: the test says which it saw
    if (driver === "postgres") expect(lz4).toBe(true);
    if (driver === "pglite") expect(lz4).toBe(false);
    // about 20 KB of JSON, as a query's retrieve_graph receipt: compressed as it is stored (over 2 KB)
    const retrieved = Array.from({ length: 80 }, (_, i) => ({ key: `f:${randomUUID()}`, text: `Fact ${i}: Dana moved to Lisbon in ${1990 + i} and works at the harbour.`, score: i / 80 }));
    const log = createDeferredRunLog(db, "query", { datasetId: ds.id, userId: null, params: {} });
    log.start("retrieve_graph");
    log.output("retrieve_graph", null, { retrieved }, new Date(), new Date());
    log.done("retrieve_graph", null);
    log.keepInference({ id: randomUUID(), datasetId: ds.id, runKind: "query", runId: log.id, stage: "query", provider: "builtin", model: "m", task: "answer", request: { context: retrieved }, response: {}, latencyMs: 1, createdAt: new Date() });
    expect(await log.finish(null)).toBe("written");
    const stored = await queryRows<{ output: string | null; request: string | null }>(
      db,
      sql`SELECT (SELECT pg_column_compression(output) FROM gb_query_run_stage_outputs WHERE dataset_id = ${ds.id} AND run_id = ${log.id}) AS output,
                 (SELECT pg_column_compression(request) FROM gb_inferences WHERE dataset_id = ${ds.id} AND run_id = ${log.id}) AS request`,
    );
    const method = lz4 ? "lz4" : "pglz";
    expect(stored).toEqual([{ output: method, request: method }]);
    const outs = await listOutputs({ db, scope: LOCAL_CALLER, kind: "query", id: log.id });
    expect(outs.find((o) => o.stage === "retrieve_graph")?.output).toEqual({ retrieved });
  });
});
