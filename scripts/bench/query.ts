import { type ChildProcess, execSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { eq, sql, sum } from "drizzle-orm";
import { parseEnv } from "../../src/env";
import { createApp } from "../../src/server/app";
import type { Database, Db } from "../../src/server/db/client";
import { queryRows } from "../../src/server/db/rows";
import { placeInCells } from "../../src/server/db/vector-cells";
import { inferences } from "../../src/server/db/schema";
import { ask } from "../../src/server/query/ask";
import type { BenchDatabase } from "./databases";
import { startBuiltinModelServer } from "./builtin-model-server";
import { seedGraph } from "./seed";
import { LOCAL_CALLER } from "../../src/server/auth/caller";

/*
 * query's figures (PRODUCT.md §10a): latency p50/p99, wall and wall minus model time, at 1k,
 * 10k and 100k facts with builtin models (target overhead p50 ≤ 5 ms on the server, ≤ 15 ms on
 * PGlite at 100k); queries per second over HTTP at 10k facts with 2 and 16 clients (target
 * ≥ 300, p99 ≤ 100 ms).
 */

export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
/** The bench's questions, in turn: two that name a person, one of only common words (w0a3f is in no text). */
export const QUESTION_SHAPES = ["names a person (likes)", "names a person (lives)", "only common words"] as const;
export const question = (i: number, people: number) =>
  [`What does Person${(i * 37) % people + 1} like?`, `Where does Person${(i * 11) % people + 1} live?`, `Who likes w0a3f?`][i % 3]!;

/**
 * The models a latency row asks: builtin (no embeddings: the text lists), or semantic (the openai
 * provider against a loopback model server answering at once, the graph seeded with embeddings:
 * the vector lists too).
 */
export type LatencyModels = "builtin" | "semantic";
const EMBEDDING_DIMENSIONS = 256;

export async function benchQueryLatency(dbs: BenchDatabase[], sizes: number[], queries: number, models: LatencyModels = "builtin"): Promise<string[][]> {
  const rows: string[][] = [["db", "facts", "queries", "wall p50 ms", "wall p99 ms", "overhead p50 ms", "overhead p99 ms"]];
  const vectors = new Map<string, number[]>();
  // BENCH_EMBED_DELAY_MS: the model takes that long to embed a question (default 0: the overhead targets' server)
  const embeddingDelayMs = Number(process.env.BENCH_EMBED_DELAY_MS ?? 0);
  const server = models === "semantic" ? await startBuiltinModelServer({ vectors, embeddingDelayMs }) : null;
  try {
    for (const { name, database } of dbs) rows.push(...(await latencyRows(name, database, models, sizes, queries, server?.url ?? "", vectors)));
  } finally {
    await server?.close();
  }
  return rows;
}

async function latencyRows(
  name: string,
  database: Database,
  models: LatencyModels,
  sizes: number[],
  queries: number,
  modelUrl: string,
  vectors: Map<string, number[]>,
): Promise<string[][]> {
  const rows: string[][] = [];
  const env =
    models === "builtin"
      ? parseEnv({ GB_MODELS: "builtin" })
      : parseEnv({
          GB_MODELS: "openai",
          OPENAI_API_KEY: "sk-bench",
          OPENAI_BASE_URL: modelUrl,
          GB_EMBEDDING_DIMENSIONS: String(EMBEDDING_DIMENSIONS),
          // GB_VECTOR_MEMO_MB=0: without pgvector, the vector lists read their cells from the table (db/vector-memo.ts)
          ...(process.env.GB_VECTOR_MEMO_MB ? { GB_VECTOR_MEMO_MB: process.env.GB_VECTOR_MEMO_MB } : {}),
        });
  {
    const app = await createApp({ env, database, worker: false });
    for (const size of sizes) {
      const { datasetName, datasetId, people } = await seedGraph(database.db, size, models === "semantic" ? { embeddings: EMBEDDING_DIMENSIONS } : {});
      // without pgvector, the embeddings in their cells, as the maintenance loop leaves them once it has caught up (vector-cells.ts)
      // and the tables vacuumed after those updates, as autovacuum leaves them (the cells' index is read alone then)
      if (models === "semantic" && !database.vector) {
        while ((await placeInCells(database.db, 20_000)) > 0);
        await database.db.execute(sql`VACUUM ANALYZE`);
        // and the cells copied in this process, as the first questions leave them (db/vector-memo.ts)
        if (app.vectorMemo) {
          const t = performance.now();
          for (const kind of ["chunk", "fact"] as const) await app.vectorMemo.refresh(database.db, datasetId, kind, EMBEDDING_DIMENSIONS);
          const s = app.vectorMemo.stats();
          console.error(`${name}, ${size} facts: the vector cells copied in memory in ${((performance.now() - t) / 1000).toFixed(1)} s (${s.rows} rows, ${(s.bytes / 2 ** 20).toFixed(0)} MB)`);
        }
      }
      if (models === "semantic") await questionVectors(database.db, datasetId, Array.from({ length: queries + 20 }, (_, i) => question(i, people)), vectors);
      const walls: number[] = [];
      const overheads: number[] = [];
      for (let i = -20; i < queries; i++) {
        const t = performance.now();
        const r = await ask({ app, input: { dataset: datasetName, question: question(i + 20, people), limit: 10 }, caller: LOCAL_CALLER });
        const wall = performance.now() - t;
        if (i < 0) continue; // warm-up
        const [m] = await database.db.select({ ms: sum(inferences.latencyMs) }).from(inferences).where(eq(inferences.runId, r.queryRunId));
        walls.push(wall);
        overheads.push(wall - Number(m?.ms ?? 0));
      }
      if (models === "semantic") {
        // what the vector lists found: rows to look up, as a model's embedding of the question finds (questionVectors)
        const [found] = await queryRows<{ facts: number | null; chunks: number | null }>(
          database.db,
          sql`SELECT avg((output->'lists'->>'facts_vector')::int)::float8 AS facts, avg((output->'lists'->>'chunks_vector')::int)::float8 AS chunks
              FROM gb_query_run_stage_outputs WHERE dataset_id = ${datasetId} AND stage = 'retrieve_graph'`,
        );
        console.error(`${name}, ${size} facts: the vector lists found ${(found?.facts ?? 0).toFixed(1)} facts and ${(found?.chunks ?? 0).toFixed(1)} chunks a question`);
      }
      const f = (x: number) => x.toFixed(1);
      rows.push([name, String(size), String(queries), f(pct(walls, 50)), f(pct(walls, 99)), f(pct(overheads, 50)), f(pct(overheads, 99))]);
    }
    await app.stop();
  }
  return rows;
}

/**
 * Each question's embedding, as a model would give it: near what answers it. The seeded rows lie
 * near their topic's direction (seed.ts: a fact its subject's, a chunk its chat's), unrelated to
 * the builtin embedding of a question's words, so that every row was further than MAX_DISTANCE
 * from such a question and the vector lists found nothing to look up. A question is the sum of
 * one of its person's facts, that fact's chunk (Person1's for one that names nobody) and a
 * direction of its own (0.6 of each component, as the rows' own): its person's facts and its
 * chat's chunks are about 0.5 from it, other rows about 1.
 */
export async function questionVectors(db: Db, datasetId: string, questions: string[], out: Map<string, number[]>): Promise<void> {
  out.clear();
  const personOf = (q: string) => Number(/Person(\d+)/.exec(q)?.[1] ?? 1);
  const people = [...new Set(questions.map(personOf))];
  const rows = await queryRows<{ person: number; fact: string; chunk: string }>(
    db,
    sql`SELECT p.n AS person, f.embedding::text AS fact, c.embedding::text AS chunk
        FROM unnest(${`{${people.join(",")}}`}::int[]) AS p(n)
        CROSS JOIN LATERAL (
          SELECT embedding, chunk_id FROM gb_facts WHERE dataset_id = ${datasetId} AND subject_id = md5(${datasetId} || 'p' || p.n)::uuid AND embedding IS NOT NULL LIMIT 1
        ) f
        JOIN gb_chunks c ON c.dataset_id = ${datasetId} AND c.id = f.chunk_id`,
  );
  // real[] reads as {…}, pgvector's vector as […]
  const numbers = (text: string) => text.slice(1, -1).split(",").map(Number);
  const byPerson = new Map(rows.map((r) => [r.person, { fact: numbers(r.fact), chunk: numbers(r.chunk) }]));
  for (const q of new Set(questions)) {
    const near = byPerson.get(personOf(q));
    if (!near) continue;
    // the question's own direction: components in [-1, 1) from a generator seeded by its text
    let seed = [...q].reduce((h, ch) => (Math.imul(h, 31) + ch.charCodeAt(0)) | 0, 7);
    const own = () => {
      seed = (Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9) | 0;
      return ((seed >>> 0) / 2 ** 32) * 2 - 1;
    };
    out.set(q, near.fact.map((x, k) => x + near.chunk[k]! + 0.6 * own()));
  }
}

/** Clock ticks a second, for /proc's CPU times (Linux). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execSync("getconf CLK_TCK", { stdio: ["ignore", "pipe", "ignore"] }).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The CPU time (ms) a process and its threads have used so far, from /proc (Linux); null where it cannot be read. */
function procCpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/**
 * The CPU time (ms) of a server: its process and those it started (`npm start`'s workers), for
 * the HTTP rows' CPU a query (PGlite runs in the server's process, so its time is the server's).
 * Null where it cannot be read.
 */
function cpuMs(pid: number | undefined): number | null {
  if (!pid) return null;
  let tree = [pid];
  try {
    const links = execSync("ps -e -o pid=,ppid=", { stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim()
      .split("\n")
      .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
    for (let i = 0; i < tree.length; i++) tree = [...tree, ...links.filter(([, parent]) => parent === tree[i]).map(([child]) => child)];
  } catch {
    // no ps: the process alone
  }
  const times = tree.map(procCpuMs);
  return times[0] === null ? null : times.reduce<number>((a, b) => a + (b ?? 0), 0);
}

/** The CPU time (ms) of the local Postgres server's processes (those of the user postgres); null where there are none to read. */
export function postgresCpuMs(): number | null {
  try {
    const pids = execSync("ps -u postgres -o pid=", { stdio: ["ignore", "pipe", "ignore"] }).toString().trim().split(/\s+/).map(Number);
    const times = pids.map(procCpuMs).filter((t) => t !== null);
    return times.length ? times.reduce((a, b) => a + b, 0) : null;
  } catch {
    return null;
  }
}

/** Resolves once `url` answers 200 (a bench server has started); fails after 60 s. */
export async function waitUp(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`bench server did not answer at ${url}`);
}

/** The bench servers' bootstrap API key. */
export const BENCH_KEY = "gb_bench_key_0000000000000000000000";

/**
 * The server a bench over HTTP runs: the bench's own (scripts/bench/serve.ts: the app's handlers on
 * node:http, in a process of its own), or the built app as `npm start` runs it (bin/start.mjs, `next
 * start`; `npm run build` first) with that many workers.
 */
export type HttpServer = { kind: "bench" } | { kind: "next"; workers: number };

const serverName = (s: HttpServer) => (s.kind === "bench" ? "bench (node:http)" : `npm start, ${s.workers} worker${s.workers > 1 ? "s" : ""}`);

/** Starts `server` on `port` with `env`; resolves once it answers health. */
async function startHttpServer(server: HttpServer, port: number, env: Record<string, string>): Promise<ChildProcess> {
  // the calls authenticate with an API key, as apps do (one indexed lookup per call), unthrottled
  const common = { ...process.env, ...env, GB_MODELS: "builtin", GB_BOOTSTRAP_API_KEY: BENCH_KEY, GB_RATE_LIMIT_QUERY: "0", NEXT_TELEMETRY_DISABLED: "1" };
  const child =
    server.kind === "bench"
      ? spawn(process.execPath, ["--import", "tsx", "scripts/bench/serve.ts"], { env: { ...common, BENCH_PORT: String(port) }, stdio: ["ignore", "ignore", "inherit"] })
      : spawn(process.execPath, ["bin/start.mjs", "-H", "127.0.0.1", "-p", String(port)], { env: { ...common, GB_WORKERS: String(server.workers), GB_REDIS_URL: "" }, stdio: ["ignore", "ignore", "inherit"] });
  await waitUp(`http://127.0.0.1:${port}/api/health`);
  return child;
}

/** Stops a bench server and waits for it to exit (a PGlite data dir is free again after). */
async function stopHttpServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

/** Queries per second over HTTP: each server in a process of its own, `clients` loops for `seconds`. */
export async function benchQueryHttp(db: BenchDatabase, env: Record<string, string>, clientsList: number[], seconds: number, servers: HttpServer[] = [{ kind: "bench" }]): Promise<string[][]> {
  const { datasetName, people } = await seedGraph(db.database.db, 10_000);
  // one PGlite data dir admits one process
  if (db.name === "pglite") await db.database.close();
  const rows: string[][] = [
    ["db", "server", "facts", "clients", "seconds", "queries", "per second", "p50 ms", "p99 ms", "server cpu ms/query", "postgres cpu ms/query", "client cpu ms/query", "target (16 clients)"],
  ];
  // the Postgres server's own CPU only where it runs here (its processes are read, as the server's)
  const local = db.name === "postgres" && /@(127\.0\.0\.1|localhost)[:/]/.test(db.url ?? "");
  for (const server of servers) {
    // several workers share one PGlite data dir no more than one process does: npm start runs one
    if (db.name === "pglite" && server.kind === "next" && server.workers > 1) continue;
    const port = 3900 + Math.floor(Math.random() * 90);
    const child = await startHttpServer(server, port, env);
    try {
      const base = `http://127.0.0.1:${port}`;
      for (const clients of clientsList) {
        const latencies: number[] = [];
        const until = performance.now() + seconds * 1000;
        let n = 0;
        const cpu0 = { server: cpuMs(child.pid), postgres: local ? postgresCpuMs() : null, client: process.cpuUsage() };
        const loop = async (c: number) => {
          for (let i = c; performance.now() < until; i += clients) {
            const t = performance.now();
            const res = await fetch(`${base}/api/trpc/query.ask`, {
              method: "POST",
              headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_KEY}` },
              body: JSON.stringify({ json: { dataset: datasetName, question: question(i, people) } }),
            });
            if (!res.ok) throw new Error(`query over HTTP failed: ${res.status} ${await res.text()}`);
            await res.arrayBuffer();
            latencies.push(performance.now() - t);
            n++;
          }
        };
        await Promise.all(Array.from({ length: clients }, (_, c) => loop(c)));
        const client = process.cpuUsage(cpu0.client);
        const per = (a: number | null, b: number | null) => (a === null || b === null || n === 0 ? "-" : ((b - a) / n).toFixed(2));
        rows.push([
          db.name,
          serverName(server),
          "10000",
          String(clients),
          String(seconds),
          String(n),
          (n / seconds).toFixed(0),
          pct(latencies, 50).toFixed(1),
          pct(latencies, 99).toFixed(1),
          per(cpu0.server, cpuMs(child.pid)),
          per(cpu0.postgres, local ? postgresCpuMs() : null),
          per(0, (client.user + client.system) / 1000),
          "",
        ]);
      }
    } finally {
      await stopHttpServer(child);
    }
  }
  return rows;
}
