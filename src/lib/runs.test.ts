import { describe, expect, it } from "vitest";
import {
  filterFromParams,
  filterInput,
  filterToParams,
  formatDuration,
  formatFullTime,
  formatRunTime,
  isLive,
  progressFraction,
  listIsLive,
  runHref,
  statusTiles,
  toggleFilter,
  type RunCounts,
} from "./runs";

const counts: RunCounts = { queued: 1, started: 0, succeeded: 3, failed: 2, flagged: 1 };

describe("status tiles", () => {
  it("has one tile per status with its count, then the flagged runs", () => {
    expect(statusTiles(counts, {})).toEqual([
      { key: "queued", count: 1, pressed: false },
      { key: "started", count: 0, pressed: false },
      { key: "succeeded", count: 3, pressed: false },
      { key: "failed", count: 2, pressed: false },
      { key: "flagged", count: 1, pressed: false },
    ]);
  });

  it("counts zero before the counts arrive", () => {
    expect(statusTiles(undefined, {}).map((t) => t.count)).toEqual([0, 0, 0, 0, 0]);
  });

  it("presses the tile the list is filtered by, and only that one", () => {
    expect(statusTiles(counts, { status: "failed" }).filter((t) => t.pressed).map((t) => t.key)).toEqual(["failed"]);
    expect(statusTiles(counts, { flagged: true }).filter((t) => t.pressed).map((t) => t.key)).toEqual(["flagged"]);
  });

  it("filters by a clicked tile, switches to another, and clears on a second click", () => {
    expect(toggleFilter({}, "succeeded")).toEqual({ status: "succeeded" });
    expect(toggleFilter({ status: "succeeded" }, "failed")).toEqual({ status: "failed" });
    expect(toggleFilter({ status: "failed" }, "flagged")).toEqual({ flagged: true });
    expect(toggleFilter({ status: "failed" }, "failed")).toEqual({});
    expect(toggleFilter({ flagged: true }, "flagged")).toEqual({});
  });
});

describe("the filter in the URL", () => {
  it("reads a status or the flag, and ignores anything else", () => {
    expect(filterFromParams(new URLSearchParams("dataset=d&status=failed"))).toEqual({ status: "failed" });
    expect(filterFromParams(new URLSearchParams("flagged=1"))).toEqual({ flagged: true });
    expect(filterFromParams(new URLSearchParams("status=bogus&flagged=yes"))).toEqual({});
  });

  it("writes the filter and keeps the dataset", () => {
    const base = new URLSearchParams("dataset=d&status=failed");
    expect(filterToParams({ flagged: true }, base).toString()).toBe("dataset=d&flagged=1");
    expect(filterToParams({}, base).toString()).toBe("dataset=d");
    expect(filterToParams({ status: "queued" }, new URLSearchParams("dataset=d")).toString()).toBe("dataset=d&status=queued");
  });

  it("becomes the list's input", () => {
    expect(filterInput({})).toEqual({});
    expect(filterInput({ status: "started" })).toEqual({ status: "started" });
    expect(filterInput({ flagged: true })).toEqual({ flagged: true });
  });
});

describe("live runs", () => {
  it("is live while queued or started", () => {
    expect(["queued", "started", "succeeded", "failed"].map((s) => isLive(s as never))).toEqual([true, true, false, false]);
  });

  it("keeps a list live while a shown run or a tile can still change", () => {
    expect(listIsLive({ ...counts, queued: 0 }, ["succeeded"])).toBe(false);
    expect(listIsLive(counts, [])).toBe(true);
    expect(listIsLive(undefined, ["started"])).toBe(true);
  });
});

describe("progress", () => {
  it("follows the chunks once they are known, the stages before", () => {
    expect(progressFraction({ stagesDone: 1, stagesTotal: 12, chunksDone: 0, chunksTotal: null })).toBeCloseTo(1 / 12);
    expect(progressFraction({ stagesDone: 4, stagesTotal: 12, chunksDone: 3, chunksTotal: 4 })).toBe(0.75);
    expect(progressFraction({ stagesDone: 0, stagesTotal: 0, chunksDone: 0, chunksTotal: 0 })).toBe(0);
  });
});

describe("run formatting", () => {
  it("says durations as people read them", () => {
    expect(formatDuration(null)).toBe("—");
    expect(formatDuration(340.4)).toBe("340 ms");
    expect(formatDuration(2345)).toBe("2.35 s");
    expect(formatDuration(23_450)).toBe("23.4 s");
    expect(formatDuration(252_000)).toBe("4 min 12 s");
    expect(formatDuration(7_500_000)).toBe("2 h 5 min");
  });

  it("shows the date of a run only when it is not today", () => {
    const now = new Date(2025, 5, 10, 12, 0, 0);
    expect(formatRunTime(new Date(2025, 5, 10, 9, 8, 7), now)).not.toMatch(/Jun/);
    expect(formatRunTime(new Date(2025, 5, 9, 9, 8, 7), now)).toMatch(/Jun/);
    expect(formatRunTime(null)).toBe("—");
    expect(formatFullTime(new Date(2025, 5, 9, 9, 8, 7, 65))).toMatch(/2025.*09:08:07.065/);
  });

  it("links a run with its dataset", () => {
    expect(runHref("query", "abc", "my data")).toBe("/admin/query/abc?dataset=my+data");
    expect(runHref("remember", "abc", "d")).toBe("/admin/remember/abc?dataset=d");
  });
});
