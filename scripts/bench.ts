import { benchDatabases } from "./bench/databases";
import { benchLongText, benchShortTexts } from "./bench/remember";
import { benchRunner } from "./bench/runner";

/**
 * npm run bench — prints the figures of PRODUCT.md §10a that exist so far, ratios side by side.
 * BENCH_RUNS overrides the number of runs (default 1000), BENCH_TEXTS the number of short texts
 * remembered (default 1000), BENCH_ONLY picks sections (e.g. "runner,remember").
 */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ")).join("\n");
}

const runs = Number(process.env.BENCH_RUNS ?? 1000);
const texts = Number(process.env.BENCH_TEXTS ?? 1000);
const only = process.env.BENCH_ONLY?.split(",");
const want = (section: string) => !only || only.includes(section);
const dbs = await benchDatabases();
try {
  if (want("runner")) {
    console.log(`\nRunner + run-log cost per stage (${runs} runs of a no-op pipeline)`);
    console.log(table(await benchRunner(dbs, runs)));
  }
  if (want("remember")) {
    console.log(`\nremember: ${texts} short texts, builtin models, one dataset`);
    console.log(table(await benchShortTexts(dbs, texts)));
    console.log("\nremember: a 20-chunk text, loopback model server answering in 100 ms (targets: ratio ≤ 0.35, not waiting ≤ 10%, ≤ 3 LLM calls/chunk)");
    console.log(table(await benchLongText(dbs, 100)));
  }
} finally {
  for (const d of dbs) await d.close();
}
