import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import type { Caller } from "../auth/caller";
import { callerFor, rejection } from "../../test/callers";
import { describeEachDriver, freshDataset } from "../../test/db";
import { chunks } from "../db/schema";
import { keepOutput } from "./outputs";
import { createQueuedRun, createRunLog } from "./run-log";

/** Four sentences of about 40 tokens each: several chunks at GB_CHUNK_TOKENS=32. */
const LONG = [
  "Alice Martin moved to Paris in the spring of 2021 after she accepted a position as a senior engineer at Acme Robotics, a company that builds warehouse machines.",
  "Bob Keller, her former colleague from Berlin, joined Acme Robotics a year later and now leads the team that designs the control software for those machines.",
  "Carol Novak runs the bakery on the corner of Rue Oberkampf where Alice and Bob meet every Friday morning to talk about robots, football and the weather.",
  "Dan Okafor, who owns the bakery building, plans to sell it next summer and move back to Lagos, where his family runs a small shipping company by the port.",
].join(" ");

describeEachDriver(
  "run timeline and progress",
  (ctx) => {
    it("times every model call and every item of a remember run, in the run's stages", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app, "tl");
      const gb = callerFor(app);
      const { rememberRunId: id } = await gb.remember.submit({ dataset: ds.name, text: LONG, wait: true });
      const [run, timeline] = await Promise.all([gb.runs.remember.get({ id }), gb.runs.remember.timeline({ id })]);
      expect(run.status).toBe("succeeded");
      expect(timeline.runId).toBe(id);

      // the inferences are exactly those the stage groups name, each with its stage and timing
      const filed = run.stages.flatMap((s) => s.inferenceIds.map((i) => [i, s.name]));
      expect(timeline.inferences.map((i) => [i.id, i.stage]).sort()).toEqual(filed.sort());
      for (const i of timeline.inferences) {
        expect(i.createdAt).toBeInstanceOf(Date);
        expect(i.latencyMs).toBeGreaterThanOrEqual(0);
        expect(i.error).toBeNull();
        expect(i.task).toEqual(expect.any(String));
      }

      // one item per chunk in the per-chunk stages, ending inside the run
      const chunks = run.progress?.chunksTotal ?? 0;
      expect(chunks).toBeGreaterThan(1);
      const indexes = (stage: string) => timeline.items.filter((i) => i.stage === stage).map((i) => i.itemIndex).sort();
      const all = [...Array(chunks).keys()];
      for (const stage of ["extract_graph", "summarize_chunk", "load_candidates", "resolve_edges", "store"]) expect(indexes(stage)).toEqual(all);
      expect(indexes("chunk_text")).toEqual([0]);
      // each item's own times, inside its stage's and the run's, in start order
      const starts = timeline.items.map((i) => i.startedAt.getTime());
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
      for (const item of timeline.items) {
        const stage = run.stages.find((s) => s.name === item.stage)!;
        expect(item.finishedAt.getTime()).toBeGreaterThanOrEqual(item.startedAt.getTime());
        expect(item.startedAt.getTime()).toBeGreaterThanOrEqual(stage.startedAt!.getTime());
        expect(item.finishedAt.getTime()).toBeLessThanOrEqual(stage.finishedAt!.getTime());
        expect(item.finishedAt.getTime()).toBeLessThanOrEqual(run.finishedAt!.getTime());
      }
      // the items of a per-chunk stage follow one another (the runner runs one item at a time)
      const extracted = timeline.items.filter((i) => i.stage === "extract_graph").sort((a, b) => a.itemIndex - b.itemIndex);
      for (let i = 1; i < extracted.length; i++) expect(extracted[i]!.startedAt.getTime()).toBeGreaterThanOrEqual(extracted[i - 1]!.finishedAt.getTime());

      // a finished run's progress is whole
      expect(run.progress).toEqual({ stagesDone: 12, stagesTotal: 12, chunksDone: chunks, chunksTotal: chunks, queuePosition: null });
    });

    it("times a query run; an unknown run is NOT_FOUND", async () => {
      const { app } = ctx();
      const ds = await freshDataset(app, "tlq");
      const gb = callerFor(app);
      await gb.remember.submit({ dataset: ds.name, text: "Alice lives in Paris.", wait: true });
      const { queryRunId: id } = await gb.query.ask({ dataset: ds.name, question: "Where does Alice live?" });
      const [run, timeline] = await Promise.all([gb.runs.query.get({ id }), gb.runs.query.timeline({ id })]);
      expect(run.progress).toBeNull();
      expect(timeline.inferences.map((i) => i.id).sort()).toEqual(run.stages.flatMap((s) => s.inferenceIds).sort());
      expect(timeline.items.map((i) => i.stage).sort()).toEqual(["query", "retrieve_graph"]);
      const missing = "00000000-0000-4000-8000-000000000000";
      expect(await rejection(gb.runs.query.timeline({ id: missing }))).toMatchObject({ code: "NOT_FOUND", message: `query run not found: ${missing}` });
      // the other log does not know the id either
      expect((await rejection(gb.runs.remember.timeline({ id }))).code).toBe("NOT_FOUND");
    });

    it("says where a queued run stands in its dataset's queue, and how far a started run has come", async () => {
      const { app } = ctx();
      const db = app.database.db;
      const ds = await freshDataset(app, "pq");
      const gb = callerFor(app);
      // A started run without a lease holds the dataset: the worker takes none of its queued runs.
      const running = await createRunLog(db, "remember", { datasetId: ds.id, userId: null, params: { text: "x" } });
      const at = { datasetId: ds.id, runId: running.id! };
      const queued = [];
      for (let i = 0; i < 3; i++) queued.push(await createQueuedRun(db, "remember", { datasetId: ds.id, userId: null, params: { text: `q${i}` } }));

      const positions = await Promise.all(queued.map(async (id) => (await gb.runs.remember.get({ id })).progress));
      expect(positions.map((p) => p?.queuePosition)).toEqual([0, 1, 2]);
      expect(positions[0]).toEqual({ stagesDone: 0, stagesTotal: 12, chunksDone: 0, chunksTotal: null, queuePosition: 0 });

      // the started run: chunks known from chunk_text, done as they are stored
      await running.start("classify_complexity");
      running.done("classify_complexity", null);
      await running.start("chunk_text");
      await keepOutput(db, "remember", at, "chunk_text", 0, { tokens: 90, chunks: [{ index: 0 }, { index: 1 }, { index: 2 }] });
      running.done("chunk_text", null);
      await running.start("extract_graph");
      await keepOutput(db, "remember", at, "extract_graph", 0, { entities: [], facts: [] });
      // chunk 0 stored: what counts is the chunk itself, not store's output (written after it)
      await db.insert(chunks).values({
        datasetId: ds.id,
        id: randomUUID(),
        textId: running.id!,
        runId: running.id!,
        index: 0,
        content: "x",
        summary: "x",
        tokenCount: 1,
        createdAt: new Date(),
      });
      expect((await gb.runs.remember.get({ id: running.id! })).progress).toEqual({
        stagesDone: 2,
        stagesTotal: 12,
        chunksDone: 1,
        chunksTotal: 3,
        queuePosition: null,
      });

      // another team's owner sees neither the run nor its timeline
      const other: Caller = { kind: "user", id: "u-other", label: "other", teamId: "team-other", role: "owner", datasetIds: null };
      expect((await rejection(callerFor(app, other).runs.remember.timeline({ id: running.id! }))).code).toBe("NOT_FOUND");
      await running.finish(new Error("test over"));
    });

    it("counts a dataset's runs per status, and the flagged ones", async () => {
      const { app } = ctx();
      const db = app.database.db;
      const ds = await freshDataset(app, "cnt");
      const gb = callerFor(app);
      const log = await createRunLog(db, "query", { datasetId: ds.id, userId: null, params: {} });
      await log.start("retrieve_graph");
      log.done("retrieve_graph", null);
      await log.start("detect_geo");
      log.done("detect_geo", new Error("advisory"));
      await log.finish(null);
      const failed = await createRunLog(db, "query", { datasetId: ds.id, userId: null, params: {} });
      await failed.finish(new Error("fatal"));
      await createRunLog(db, "query", { datasetId: ds.id, userId: null, params: {} });
      expect(await gb.runs.query.counts({ dataset: ds.name })).toEqual({ queued: 0, started: 1, succeeded: 1, failed: 1, flagged: 1 });
      expect(await gb.runs.remember.counts({ dataset: ds.name })).toEqual({ queued: 0, started: 0, succeeded: 0, failed: 0, flagged: 0 });
      expect((await rejection(gb.runs.query.counts({ dataset: "no-such-dataset" }))).code).toBe("NOT_FOUND");
    });
  },
  { env: () => ({ GB_CHUNK_TOKENS: "32", GB_CHUNK_OVERLAP_TOKENS: "0" }) },
);
