import { describe, expect, it } from "vitest";
import { chartGeometry, shortNumber } from "./series-chart-geometry";

describe("series chart geometry", () => {
  it("puts time on x and value on y, rising values going up", () => {
    const g = chartGeometry(
      [
        { time: new Date("2026-03-31"), value: 4.2e6 },
        { time: new Date("2026-06-30"), value: 4.8e6 },
        { time: new Date("2026-09-30"), value: 5.5e6 },
      ],
      600,
      240,
    );
    expect(g.dots.map((d) => d.x)).toEqual([...g.dots.map((d) => d.x)].sort((a, b) => a - b));
    expect(g.dots[0]!.x).toBe(g.plot.left);
    expect(g.dots[2]!.x).toBe(g.plot.right);
    expect(g.dots[2]!.y).toBeLessThan(g.dots[0]!.y);
    expect(g.path.startsWith("M")).toBe(true);
    expect(g.yTicks.map((t) => t.label)).toContain("2M");
    expect(g.xTicks.length).toBeGreaterThan(1);
  });

  it("draws one point, and equal values, without dividing by nothing", () => {
    const one = chartGeometry([{ time: new Date("2026-01-01"), value: 0 }], 300, 200);
    expect(Number.isFinite(one.dots[0]!.x) && Number.isFinite(one.dots[0]!.y)).toBe(true);
    expect(chartGeometry([], 300, 200).path).toBe("");
  });

  it("writes numbers short", () => {
    expect([shortNumber(3_100_000), shortNumber(1200), shortNumber(0.25), shortNumber(-4), shortNumber(2e9)]).toEqual(["3.1M", "1.2k", "0.25", "-4", "2B"]);
  });
});
