import { describe, expect, it } from "vitest";
import { layoutWaterfall, tickLabel, WATERFALL, type WaterfallInput } from "./waterfall";

const T0 = new Date("2025-01-01T00:00:00.000Z").getTime();
const at = (ms: number) => new Date(T0 + ms);

/** A run of 1000 ms: a stage once, a per-chunk stage of two items, one skipped stage. */
function input(over: Partial<WaterfallInput> = {}): WaterfallInput {
  return {
    start: at(0),
    end: at(1000),
    now: at(5000),
    stages: [
      { name: "chunk_text", status: "succeeded", startedAt: at(0), finishedAt: at(100) },
      { name: "extract_graph", status: "succeeded", startedAt: at(100), finishedAt: at(900) },
      { name: "resolve_geo", status: "skipped", startedAt: null, finishedAt: null },
    ],
    items: [
      { stage: "chunk_text", itemIndex: 0, startedAt: at(0), finishedAt: at(100) },
      { stage: "extract_graph", itemIndex: 0, startedAt: at(100), finishedAt: at(400) },
      { stage: "extract_graph", itemIndex: 1, startedAt: at(400), finishedAt: at(900) },
    ],
    calls: [
      { id: "c1", stage: "extract_graph", task: "extract", createdAt: at(400), latencyMs: 300, error: null },
      { id: "c2", stage: "extract_graph", task: "extract", createdAt: at(600), latencyMs: 400, error: "timeout" },
      { id: "c3", stage: "extract_graph", task: "extract", createdAt: at(900), latencyMs: 200, error: null },
    ],
    ...over,
  };
}

// plot from x=100 to x=1100: one pixel per millisecond
const WIDTH = 1100 + WATERFALL.padRight;
const LABEL = 100;

describe("layoutWaterfall", () => {
  it("puts one row per stage in pipeline order, bars on the run's time axis", () => {
    const l = layoutWaterfall(input(), WIDTH, { labelWidth: LABEL });
    expect(l.totalMs).toBe(1000);
    expect([l.plotStart, l.plotEnd]).toEqual([100, 1100]);
    expect(l.rows.map((r) => [r.stage, r.row])).toEqual([
      ["chunk_text", 0],
      ["extract_graph", 1],
      ["resolve_geo", 2],
    ]);
    expect(l.rows[0]?.bar).toMatchObject({ x: 100, width: 100, startMs: 0, endMs: 100, running: false });
    expect(l.rows[1]?.bar).toMatchObject({ x: 200, width: 800 });
    // rows go down the page without overlapping
    const [a, b, c] = l.rows;
    expect(b!.y).toBeGreaterThanOrEqual(a!.y + a!.height);
    expect(c!.y).toBeGreaterThanOrEqual(b!.y + b!.height);
    expect(l.height).toBeGreaterThan(c!.y + c!.height);
  });

  it("draws no bar for a stage that never started", () => {
    const skipped = layoutWaterfall(input(), WIDTH, { labelWidth: LABEL }).rows[2]!;
    expect(skipped.bar).toBeNull();
    expect(skipped.items).toEqual([]);
    expect(skipped.calls).toEqual([]);
    expect(skipped.height).toBe(WATERFALL.barHeight);
  });

  it("shows each item of a per-chunk stage from its start to its end, as kept with its output", () => {
    const [once, perChunk] = layoutWaterfall(input(), WIDTH, { labelWidth: LABEL }).rows;
    expect(perChunk!.items.map((i) => [i.index, i.startMs, i.endMs, i.x, i.width])).toEqual([
      [0, 100, 400, 200, 300],
      [1, 400, 900, 500, 500],
    ]);
    // a stage that ran once is its own one item
    expect(once!.items).toEqual([]);
  });

  it("draws an item where it ran, whatever other stages' items did in between (no inference from neighbours)", () => {
    const items = [
      { stage: "extract_graph", itemIndex: 0, startedAt: at(150), finishedAt: at(300) },
      { stage: "summarize_chunk", itemIndex: 0, startedAt: at(300), finishedAt: at(500) },
      { stage: "extract_graph", itemIndex: 1, startedAt: at(600), finishedAt: at(900) },
    ];
    const l = layoutWaterfall(input({ items }), WIDTH, { labelWidth: LABEL });
    expect(l.rows[1]!.items.map((i) => [i.startMs, i.endMs])).toEqual([
      [150, 300],
      [600, 900],
    ]);
  });

  it("puts model calls in lanes so that overlapping ones stay visible", () => {
    const row = layoutWaterfall(input(), WIDTH, { labelWidth: LABEL }).rows[1]!;
    // c1 100–400, c2 200–600 overlaps it, c3 700–900 fits in the first lane again
    expect(row.calls.map((c) => [c.id, c.lane, c.startMs, c.endMs, c.x, c.width])).toEqual([
      ["c1", 0, 100, 400, 200, 300],
      ["c2", 1, 200, 600, 300, 400],
      ["c3", 0, 700, 900, 800, 200],
    ]);
    expect(row.calls.find((c) => c.id === "c2")?.error).toBe("timeout");
    const top = row.barY + WATERFALL.barHeight + WATERFALL.laneGap;
    expect(row.calls.map((c) => c.y)).toEqual([top, top + WATERFALL.laneHeight + WATERFALL.laneGap, top]);
    expect(row.height).toBeGreaterThan(WATERFALL.barHeight + 2 * WATERFALL.laneHeight);
  });

  it("stops adding lanes at the maximum", () => {
    const calls = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}`, stage: "extract_graph", task: "extract", createdAt: at(900), latencyMs: 500, error: null }));
    const row = layoutWaterfall(input({ calls }), WIDTH, { labelWidth: LABEL }).rows[1]!;
    expect(Math.max(...row.calls.map((c) => c.lane))).toBe(WATERFALL.maxLanes - 1);
  });

  it("runs a started stage of a live run up to now", () => {
    const l = layoutWaterfall(
      input({
        end: null,
        now: at(2000),
        stages: [{ name: "extract_graph", status: "started", startedAt: at(100), finishedAt: at(400) }],
      }),
      WIDTH,
      { labelWidth: LABEL },
    );
    expect(l.totalMs).toBe(2000);
    expect(l.rows[0]?.bar).toMatchObject({ startMs: 100, endMs: 2000, running: true });
  });

  it("keeps an instant stage visible, and never draws before the axis", () => {
    const l = layoutWaterfall(
      input({
        stages: [{ name: "store_series", status: "succeeded", startedAt: at(500), finishedAt: at(500) }],
        calls: [{ id: "early", stage: "store_series", task: "embed", createdAt: at(10), latencyMs: 50, error: null }],
      }),
      WIDTH,
      { labelWidth: LABEL },
    );
    expect(l.rows[0]?.bar?.width).toBe(WATERFALL.minBar);
    expect(l.rows[0]?.calls[0]?.x).toBe(100);
  });

  it("labels the axis in round steps of the run's scale", () => {
    const l = layoutWaterfall(input(), WIDTH, { labelWidth: LABEL });
    expect(l.ticks[0]).toEqual({ x: 100, ms: 0, label: "0 ms" });
    expect(l.ticks.at(-1)?.label).toBe("1000 ms");
    expect(l.ticks.every((t) => t.x >= l.plotStart && t.x <= l.plotEnd)).toBe(true);
    expect(tickLabel(1500, 4000)).toBe("1.5 s");
    expect(tickLabel(180_000, 600_000)).toBe("3 min");
  });

  it("keeps a usable plot on a narrow screen", () => {
    const l = layoutWaterfall(input(), 120, { labelWidth: LABEL });
    expect(l.plotEnd - l.plotStart).toBeGreaterThanOrEqual(40);
  });

  it("puts the names above the bars when asked, giving the plot the whole width", () => {
    const l = layoutWaterfall(input(), 330, { labelsAbove: true });
    expect(l.plotStart).toBeLessThan(10);
    expect(l.plotEnd).toBe(330 - WATERFALL.padRight);
    const row = l.rows[1]!;
    expect(row.labelY).toBeLessThan(row.barY);
    expect(row.barY).toBe(row.y + WATERFALL.labelAbove);
    expect(row.calls.every((c) => c.y > row.barY)).toBe(true);
    expect(l.rows[2]!.height).toBeLessThan(WATERFALL.barHeight);
    // beside the bars, the label sits on the bar's line
    const side = layoutWaterfall(input(), WIDTH).rows[1]!;
    expect(side.barY).toBe(side.y);
    expect(side.labelY).toBeGreaterThan(side.barY);
  });
});
