import { describe, expect, it } from "vitest";
import { formatAnswer, formatProgress, formatRun, formatRunList, type RunDetailWire } from "./format";

const stage = (name: string, status: string, durationMs: number | null = null, error: string | null = null) => ({ name, status, durationMs, error, policy: "fatal" });

const run = (over: Partial<RunDetailWire>): RunDetailWire => ({
  kind: "remember",
  id: "r1",
  dataset: "default",
  status: "started",
  error: null,
  flagged: false,
  createdAt: "2026-12-03T10:00:00.000Z",
  durationMs: null,
  stages: [stage("chunk_text", "succeeded", 3), stage("extract_graph", "started"), stage("store", "not_started")],
  progress: { stagesDone: 1, stagesTotal: 3, chunksDone: 2, chunksTotal: 5, queuePosition: null },
  ...over,
});

describe("the command line's output", () => {
  it("says where a running remember is: its place in the queue, then stages, chunks and the stage at work", () => {
    expect(formatProgress(run({ status: "queued", progress: { stagesDone: 0, stagesTotal: 3, chunksDone: 0, chunksTotal: null, queuePosition: 2 } }))).toBe("queued, 2 ahead");
    expect(formatProgress(run({ status: "queued", progress: { stagesDone: 0, stagesTotal: 3, chunksDone: 0, chunksTotal: null, queuePosition: 0 } }))).toBe("queued");
    expect(formatProgress(run({}))).toBe("started: 1/3 stages, chunks 2/5 (extract_graph)");
  });

  it("shows an ended run with the stages that ran, its error and the flag", () => {
    const failed = formatRun(run({ status: "failed", error: "model server down", durationMs: 1500, stages: [stage("chunk_text", "succeeded", 3), stage("extract_graph", "failed", 1400, "HTTP 500"), stage("store", "not_started")] }));
    expect(failed.split("\n")).toEqual(["remember run r1 failed in 1.5 s", "  error: model server down", "  ✓ chunk_text  3 ms", "  ✗ extract_graph  1.4 s  (HTTP 500)"]);
    expect(formatRun(run({ status: "succeeded", flagged: true, durationMs: 20 })).split("\n")[0]).toBe("remember run r1 succeeded (flagged: a stage failed) in 20 ms");
    // after the progress showed each stage: the ending and the error only
    expect(formatRun(run({ status: "failed", error: "model server down", durationMs: 1500, stages: [stage("chunk_text", "succeeded", 3)] }), { stages: false })).toBe(
      "remember run r1 failed in 1.5 s\n  error: model server down",
    );
  });

  it("lists runs one a line, marking the flagged ones and saying how to get the next page", () => {
    const out = formatRunList("query", {
      items: [
        { id: "a", status: "succeeded", flagged: true, createdAt: "2026-12-03T10:00:00.000Z", durationMs: 12, userId: "u1", error: null },
        { id: "b", status: "failed", flagged: false, createdAt: "2026-12-03T09:00:00.000Z", durationMs: null, userId: null, error: "x" },
      ],
      nextCursor: "c2",
    });
    expect(out.split("\n")).toEqual(["a  succeeded*  2026-12-03 10:00:00  12 ms  u1", "b  failed  2026-12-03 09:00:00    ", "* flagged: a stage failed", "more: --cursor c2"]);
    expect(formatRunList("query", { items: [], nextCursor: null })).toBe("no query runs");
  });

  it("prints the answer, then each cited source by its number with when it held and how far it is", () => {
    const out = formatAnswer({
      answer: "Ana lives in Lyon [1].",
      queryRunId: "q1",
      sources: [{ n: 1, kind: "fact", text: "Ana lives in Lyon", score: 0.9, validAt: "2020-01-02T00:00:00.000Z", invalidAt: "2024-05-06T00:00:00.000Z", distanceKm: 4.26 }],
    });
    expect(out.split("\n")).toEqual(["Ana lives in Lyon [1].", "", "sources:", "  [1] Ana lives in Lyon (since 2020-01-02, until 2024-05-06) [4.3 km]", "", "query run q1"]);
  });
});
