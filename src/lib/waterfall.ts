import { scaleLinear } from "d3-scale";
import type { StageStatus } from "./stages";

/*
 * The stage waterfall of a run page, laid out as plain numbers for an SVG: one row per stage in
 * pipeline order with the stage's bar on a shared time axis, the items (chunks) of a per-chunk
 * stage as segments inside it, and the stage's model calls as thin bars below it, in lanes so
 * that concurrent calls do not hide each other. Pure: the component only draws what this returns.
 */

export interface WaterfallStage {
  name: string;
  status: StageStatus;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** An item (chunk) of a stage: when the stage began and ended on it (kept with its output). */
export interface WaterfallItem {
  stage: string;
  itemIndex: number;
  startedAt: Date;
  finishedAt: Date;
}

/** A model call ran from createdAt − latencyMs to createdAt. */
export interface WaterfallCall {
  id: string;
  stage: string | null;
  task: string;
  createdAt: Date;
  latencyMs: number;
  error: string | null;
}

export interface WaterfallInput {
  /** when the run started */
  start: Date;
  /** when it ended; null while it runs (then `now` is the end) */
  end: Date | null;
  now: Date;
  stages: readonly WaterfallStage[];
  items: readonly WaterfallItem[];
  calls: readonly WaterfallCall[];
}

/** Times are milliseconds from the run's start. */
export interface Span {
  x: number;
  width: number;
  startMs: number;
  endMs: number;
}

export interface ItemBar extends Span {
  index: number;
}

export interface CallBar extends Span {
  id: string;
  task: string;
  error: string | null;
  lane: number;
  /** top of the call's bar, in the SVG */
  y: number;
}

export interface WaterfallRow {
  stage: string;
  status: StageStatus;
  /** the row's place in pipeline order */
  row: number;
  /** top of the row, and the baseline of its label */
  y: number;
  labelY: number;
  /** top of the stage's bar */
  barY: number;
  height: number;
  /** null for a stage that never started (skipped, not started) */
  bar: (Span & { running: boolean }) | null;
  /** the items of a stage that ran for several (a per-chunk stage of a text of several chunks) */
  items: ItemBar[];
  calls: CallBar[];
}

export interface WaterfallLayout {
  width: number;
  height: number;
  /** where the time axis starts and ends, in x */
  plotStart: number;
  plotEnd: number;
  totalMs: number;
  ticks: { x: number; ms: number; label: string }[];
  rows: WaterfallRow[];
}

export const WATERFALL = {
  axisHeight: 24,
  barHeight: 18,
  laneHeight: 5,
  laneGap: 2,
  rowGap: 10,
  maxLanes: 6,
  labelWidth: 150,
  /** the label's line when labels go above the bars (narrow screens) */
  labelAbove: 15,
  padRight: 16,
  /** the narrowest a bar is drawn, so an instant stage still shows */
  minBar: 2,
} as const;

/** An axis label: milliseconds for a short run, seconds beyond. */
export function tickLabel(ms: number, totalMs: number): string {
  if (totalMs < 2000) return `${Math.round(ms)} ms`;
  if (totalMs < 120_000) return `${Number((ms / 1000).toFixed(3))} s`;
  return `${Number((ms / 60_000).toFixed(2))} min`;
}

/** Greedy lanes: each call in the first lane that is free when it starts (the last lane takes the rest). */
function lanes<T extends { startMs: number; endMs: number }>(spans: T[], max: number): (T & { lane: number })[] {
  const ends: number[] = [];
  return [...spans]
    .sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs)
    .map((s) => {
      let lane = ends.findIndex((end) => end <= s.startMs);
      if (lane === -1) lane = ends.length < max ? ends.length : max - 1;
      ends[lane] = Math.max(ends[lane] ?? 0, s.endMs);
      return { ...s, lane };
    });
}

export interface WaterfallOptions {
  /** room for the stage names left of the plot */
  labelWidth?: number;
  /** names above the bars instead (narrow screens): the plot takes the whole width */
  labelsAbove?: boolean;
}

export function layoutWaterfall(input: WaterfallInput, width: number, options: WaterfallOptions = {}): WaterfallLayout {
  const above = options.labelsAbove === true;
  const labelWidth = above ? 4 : (options.labelWidth ?? WATERFALL.labelWidth);
  const t0 = input.start.getTime();
  const ms = (d: Date) => d.getTime() - t0;
  const runEnd = ms(input.end ?? input.now);

  const stageSpan = (s: WaterfallStage): { startMs: number; endMs: number; running: boolean } | null => {
    if (!s.startedAt) return null;
    // a stage still started runs until now (or until the run ended, if it was abandoned)
    const running = s.status === "started";
    const end = running ? runEnd : s.finishedAt ? ms(s.finishedAt) : ms(s.startedAt);
    return { startMs: ms(s.startedAt), endMs: Math.max(end, ms(s.startedAt)), running: running && input.end === null };
  };
  const callSpans = input.calls.map((c) => ({ call: c, startMs: ms(c.createdAt) - c.latencyMs, endMs: ms(c.createdAt) }));

  const totalMs = Math.max(
    1,
    runEnd,
    ...input.stages.map((s) => stageSpan(s)?.endMs ?? 0),
    ...input.items.map((i) => ms(i.finishedAt)),
    ...callSpans.map((c) => c.endMs),
  );
  const plotStart = labelWidth;
  const plotEnd = Math.max(plotStart + 40, width - WATERFALL.padRight);
  const x = scaleLinear().domain([0, totalMs]).range([plotStart, plotEnd]);
  const span = (startMs: number, endMs: number, min: number): Span => {
    const x0 = x(Math.max(0, startMs));
    return { x: x0, width: Math.max(min, x(endMs) - x0), startMs, endMs };
  };

  const rows: WaterfallRow[] = [];
  let y = WATERFALL.axisHeight;
  input.stages.forEach((s, row) => {
    const stage = stageSpan(s);
    const own = stage ? input.items.filter((i) => i.stage === s.name) : [];
    // one item is the stage itself: items are drawn for a stage that ran several
    const items: ItemBar[] = (own.length > 1 && stage ? own : [])
      .map((i) => {
        const end = ms(i.finishedAt);
        return { ...span(Math.min(end, ms(i.startedAt)), end, 1), index: i.itemIndex };
      })
      .sort((a, b) => a.startMs - b.startMs);
    const placed = lanes(
      callSpans.filter((c) => c.call.stage === s.name),
      WATERFALL.maxLanes,
    );
    const laneCount = placed.reduce((n, c) => Math.max(n, c.lane + 1), 0);
    const barY = y + (above ? WATERFALL.labelAbove : 0);
    const callsTop = barY + WATERFALL.barHeight + WATERFALL.laneGap;
    const calls: CallBar[] = placed.map((c) => ({
      ...span(c.startMs, c.endMs, WATERFALL.minBar),
      id: c.call.id,
      task: c.call.task,
      error: c.call.error,
      lane: c.lane,
      y: callsTop + c.lane * (WATERFALL.laneHeight + WATERFALL.laneGap),
    }));
    // with names above, a stage that never ran is its name alone
    const height = !stage && above ? WATERFALL.labelAbove + 2 : barY - y + WATERFALL.barHeight + laneCount * (WATERFALL.laneHeight + WATERFALL.laneGap) + (laneCount > 0 ? WATERFALL.laneGap : 0);
    rows.push({
      stage: s.name,
      status: s.status,
      row,
      y,
      labelY: above ? y + 11 : barY + 13,
      barY,
      height,
      bar: stage ? { ...span(stage.startMs, stage.endMs, WATERFALL.minBar), running: stage.running } : null,
      items,
      calls,
    });
    y += height + WATERFALL.rowGap;
  });

  const ticks = x.ticks(Math.max(2, Math.floor((plotEnd - plotStart) / 110))).map((v) => ({ x: x(v), ms: v, label: tickLabel(v, totalMs) }));
  return { width, height: y, plotStart, plotEnd, totalMs, ticks, rows };
}
