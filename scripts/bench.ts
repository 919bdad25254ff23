import { benchDatabases } from "./bench/databases";
import { benchRunner } from "./bench/runner";

/**
 * npm run bench — prints the figures of PRODUCT.md §10a that exist so far, ratios side by side.
 * BENCH_RUNS overrides the number of runs (default 1000).
 */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ")).join("\n");
}

const runs = Number(process.env.BENCH_RUNS ?? 1000);
const dbs = await benchDatabases();
try {
  console.log(`\nRunner + run-log cost per stage (${runs} runs of a no-op pipeline)`);
  console.log(table(await benchRunner(dbs, runs)));
} finally {
  for (const d of dbs) await d.close();
}
