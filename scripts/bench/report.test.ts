import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BenchReport, compareRows, readBenchFile } from "./report";

const header = ["db", "facts", "queries", "overhead p50 ms", "overhead p99 ms", "note"];

describe("bench report", () => {
  it("compares each figure with the row of the base run that has the same key columns", () => {
    const base = [header, ["pglite", "10000", "200", "20.0", "100.0", "x"], ["postgres", "10000", "200", "10.0", "50.0", "x"]];
    // rows in another order, one row the base run did not have
    const now = [header, ["postgres", "10000", "200", "12.5", "25.0", "y"], ["pglite", "100000", "200", "30.0", "90.0", "y"], ["pglite", "10000", "200", "10.0", "100.0", "y"]];
    expect(compareRows(base, now)).toEqual([
      ["db", "facts", "queries now/base", "overhead p50 ms now/base", "overhead p99 ms now/base"],
      ["postgres", "10000", "1.00×", "1.25×", "0.50×"],
      ["pglite", "100000", "-", "-", "-"],
      ["pglite", "10000", "1.00×", "0.50×", "1.00×"],
    ]);
  });

  it("says nothing to compare when no row matches", () => {
    expect(compareRows([header, ["pglite", "1000", "1", "1", "1", ""]], [header, ["postgres", "1000", "1", "1", "1", ""]])).toBeNull();
  });

  it("judges targets either way, keeps them in the file, and prints the base run's verdict beside", () => {
    const first = new BenchReport(null, () => {});
    expect(first.target("overhead", 4.2, "≤", 5, "ms").met).toBe(true);
    expect(first.target("throughput", 120, "≥", 300, "/s").met).toBe(false);
    expect(first.target("unmeasured", null, "≥", 1, "/s").met).toBe(false);
    first.section("query latency", [header, ["pglite", "10000", "200", "20.0", "100.0", ""]]);
    const dir = mkdtempSync(path.join(tmpdir(), "gb-bench-"));
    const file = path.join(dir, "base.json");
    first.write(file);

    const printed: string[] = [];
    const second = new BenchReport(readBenchFile(file), (t) => printed.push(t));
    second.section("query latency", [header, ["pglite", "10000", "200", "30.0", "100.0", ""]]);
    second.section("a section the base run lacks", [header, ["pglite", "10000", "200", "30.0", "100.0", ""]]);
    second.target("throughput", 330, "≥", 300, "/s");
    expect(printed.join("\n")).toMatch(/compared with the base run[\s\S]*1\.50×/);
    expect(printed.join("\n")).toMatch(/no such section or rows in the base run/);
    const summary = second.summary();
    expect(summary).toMatch(/1 of 1 met/);
    expect(summary).toMatch(/throughput\s+330 \/s\s+≥ 300 \/s\s+met\s+120 \/s \(not met\)/);
  });

  it("refuses a file that is not a bench run's, saying how to write one", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "gb-bench-")), "other.json");
    writeFileSync(file, JSON.stringify({ hello: 1 }));
    expect(() => readBenchFile(file)).toThrow(/not a bench file \(npm run bench -- --out FILE/);
  });
});
