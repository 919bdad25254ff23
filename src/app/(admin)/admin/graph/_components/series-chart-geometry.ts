import { scaleLinear, scaleTime } from "d3-scale";

/** A series chart's drawing, computed apart from React so that it can be tested alone. */
export interface ChartPoint {
  time: Date;
  value: number;
}

export interface ChartGeometry<P extends ChartPoint = ChartPoint> {
  width: number;
  height: number;
  /** the plot area inside the axes */
  plot: { left: number; top: number; right: number; bottom: number };
  dots: { x: number; y: number; point: P }[];
  /** the line through the dots, an SVG path */
  path: string;
  xTicks: { x: number; label: string }[];
  yTicks: { y: number; label: string }[];
}

const MARGIN = { left: 64, right: 16, top: 12, bottom: 28 };

/** 3100000 → "3.1M", 0.25 → "0.25", 1200 → "1.2k". */
export function shortNumber(n: number): string {
  const abs = Math.abs(n);
  const [d, s] = abs >= 1e9 ? [1e9, "B"] : abs >= 1e6 ? [1e6, "M"] : abs >= 1e3 ? [1e3, "k"] : [1, ""];
  return `${Number((n / d).toPrecision(3))}${s}`;
}

const day = (d: Date): string => d.toISOString().slice(0, 10);

/**
 * Time on x, value on y. One point, or points on one day or of one value, still draw: the
 * domain is widened around them (a day, or 10% of the value) rather than collapsing to nothing.
 */
export function chartGeometry<P extends ChartPoint>(points: readonly P[], width: number, height: number): ChartGeometry<P> {
  const plot = { left: MARGIN.left, top: MARGIN.top, right: width - MARGIN.right, bottom: height - MARGIN.bottom };
  if (points.length === 0) return { width, height, plot, dots: [], path: "", xTicks: [], yTicks: [] };
  const times = points.map((p) => p.time.getTime());
  const values = points.map((p) => p.value);
  let [t0, t1] = [Math.min(...times), Math.max(...times)];
  if (t0 === t1) [t0, t1] = [t0 - 86_400_000, t1 + 86_400_000];
  let [v0, v1] = [Math.min(...values, 0), Math.max(...values)];
  if (v0 === v1) [v0, v1] = [v0 - Math.abs(v0 || 1) * 0.1, v1 + Math.abs(v1 || 1) * 0.1];
  const x = scaleTime().domain([new Date(t0), new Date(t1)]).range([plot.left, plot.right]);
  const y = scaleLinear().domain([v0, v1]).range([plot.bottom, plot.top]).nice();
  const dots = points.map((p) => ({ x: x(p.time), y: y(p.value), point: p }));
  const path = dots.map((d, i) => `${i === 0 ? "M" : "L"}${d.x.toFixed(1)},${d.y.toFixed(1)}`).join("");
  const xTicks = x.ticks(Math.max(2, Math.floor((plot.right - plot.left) / 110))).map((t) => ({ x: x(t), label: day(t) }));
  const yTicks = y.ticks(5).map((v) => ({ y: y(v), label: shortNumber(v) }));
  return { width, height, plot, dots, path, xTicks, yTicks };
}
