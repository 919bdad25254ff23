import { type ChildProcess, spawn } from "node:child_process";
import type { BenchDatabase } from "./databases";
import { BENCH_KEY, pct, waitUp } from "./query";
import { seedGraph } from "./seed";
import { type Shape, shapedText } from "./texts";
import { createDataset } from "../../src/server/datasets/datasets";
import { LOCAL_CALLER } from "../../src/server/auth/caller";

/*
 * Responsiveness (#11): while the app remembers a 1 MiB text with builtin models, does it still
 * answer? The app runs as users run it: an HTTP server in a process of its own that also runs the
 * remember worker. One client submits the text and watches its run, first alone (the remember's
 * own time), then again into another dataset while two other clients loop on GET /api/health and
 * on query.ask over a third dataset (1k facts), each as fast as it is answered (20 ms apart), until
 * the run ends. Targets: the remember within 60 s; while it runs, health p99 ≤ 200 ms and ask p99
 * ≤ 1 s. BENCH_RESPONSIVE_SERVER=next measures the built app (next start) instead of the handler
 * from source.
 */

const KEY = BENCH_KEY;
const auth = { "content-type": "application/json", authorization: `Bearer ${KEY}` };

async function trpc(base: string, path: string, input: unknown, method: "GET" | "POST"): Promise<unknown> {
  const body = JSON.stringify({ json: input });
  const res =
    method === "GET"
      ? await fetch(`${base}/api/trpc/${path}?input=${encodeURIComponent(body)}`, { headers: auth })
      : await fetch(`${base}/api/trpc/${path}`, { method, headers: auth, body });
  if (!res.ok) throw new Error(`${path} over HTTP failed: ${res.status} ${(await res.text()).slice(0, 300)}`);
  return ((await res.json()) as { result: { data: { json: unknown } } }).result.data.json;
}

/** Calls `call` one after the other until `done()`, and keeps each call's latency. */
async function loop(call: () => Promise<unknown>, done: () => boolean, pauseMs: number): Promise<number[]> {
  const out: number[] = [];
  while (!done()) {
    const t = performance.now();
    await call();
    out.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  return out;
}

export async function benchResponsiveness(db: BenchDatabase, env: Record<string, string>, shapes: Shape[], bytes: number, limitS: number): Promise<string[][]> {
  const { datasetName: askDataset, people } = await seedGraph(db.database.db, 1000);
  const big = await createDataset({ db: db.database.db, caller: LOCAL_CALLER, input: { name: `bench-big-${Date.now()}` } });
  const alone = await createDataset({ db: db.database.db, caller: LOCAL_CALLER, input: { name: `bench-alone-${Date.now()}` } });
  if (db.name === "pglite") await db.database.close(); // one PGlite data dir admits one process
  const port = 3800 + Math.floor(Math.random() * 90);
  // BENCH_RESPONSIVE_SERVER=next: the built app (`npm run build` first), as users run it; else the
  // same handler on node:http from source (scripts/bench/serve.ts)
  const built = process.env.BENCH_RESPONSIVE_SERVER === "next";
  // BENCH_RESPONSIVE_LOADS: alone, probed or both (the default)
  const loads = (process.env.BENCH_RESPONSIVE_LOADS ?? "alone,probed").split(",");
  // BENCH_SERVER_NODE_ARGS: node's own flags for the server (e.g. --cpu-prof --cpu-prof-dir=DIR)
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const command = [...nodeArgs, ...(built ? ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port)] : ["--import", "tsx", "scripts/bench/serve.ts"])];
  const child: ChildProcess = spawn(process.execPath, command, {
    env: {
      ...process.env,
      ...env,
      GB_MODELS: "builtin",
      NEXT_TELEMETRY_DISABLED: "1",
      BENCH_PORT: String(port),
      BENCH_WORKER: "1",
      GB_BOOTSTRAP_API_KEY: KEY,
      GB_RATE_LIMIT_QUERY: "0",
      GB_RATE_LIMIT_REMEMBER: "0",
      GB_MAX_TEXT_BYTES: String(Math.max(bytes, 1_048_576)),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const rows: string[][] = [
    ["db", "server", "text", "load", "chunks", "remember s", "health n", "health p50 ms", "health p99 ms", "health max ms", "ask n", "ask p50 ms", "ask p99 ms", "targets"],
  ];
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitUp(`${base}/api/health`);
    type Ended = { status: string; progress?: { chunksTotal: number } };
    /** Remembers the text in `dataset`, alone or while the two loops probe the server; a row. */
    const measure = async (text: string, label: string, dataset: string, probed: boolean): Promise<boolean> => {
      const started = performance.now();
      const { rememberRunId } = (await trpc(base, "remember.submit", { dataset, text }, "POST")) as { rememberRunId: string };
      let ended: Ended | null = null;
      const done = () => ended !== null || performance.now() - started > limitS * 1000;
      const watch = (async () => {
        while (!done()) {
          await new Promise((r) => setTimeout(r, 500));
          const run = (await trpc(base, "remember.get", { id: rememberRunId }, "GET")) as Ended;
          if (run.status === "succeeded" || run.status === "failed") ended = run;
        }
      })();
      let q = 0;
      const [health, asks] = await Promise.all([
        probed ? loop(() => fetch(`${base}/api/health`).then((r) => r.arrayBuffer()), done, 20) : Promise.resolve([]),
        probed ? loop(() => trpc(base, "query.ask", { dataset: askDataset, question: `Where does Person${(q++ % people) + 1} live?` }, "POST"), done, 20) : Promise.resolve([]),
        watch,
      ]);
      const seconds = (performance.now() - started) / 1000;
      const end = ended as Ended | null;
      const f = (xs: number[], p: number | "max") => (xs.length === 0 ? "-" : (p === "max" ? Math.max(...xs) : pct(xs, p)).toFixed(0));
      rows.push([
        db.name,
        built ? "next start" : "node:http",
        label,
        probed ? "health + ask loops" : "alone",
        String(end?.progress?.chunksTotal ?? "?"),
        end ? `${seconds.toFixed(1)}${end.status === "succeeded" ? "" : ` (${end.status})`}` : `> ${limitS} (not done)`,
        String(health.length),
        f(health, 50),
        f(health, 99),
        f(health, "max"),
        String(asks.length),
        f(asks, 50),
        f(asks, 99),
        probed ? "health p99 ≤ 200, ask p99 ≤ 1000" : "≤ 60 s",
      ]);
      return end !== null;
    };
    for (const shape of shapes) {
      const text = shapedText(shape, bytes);
      const label = `${shape} ${Math.round(bytes / 1024)} KiB`;
      // each in a dataset of its own: the second is not a remember of what the first stored
      // (a run still going in the server would hold the next one behind it: stop there)
      if (loads.includes("alone") && !(await measure(text, label, alone.name, false))) break;
      if (loads.includes("probed") && !(await measure(text, label, big.name, true))) break;
    }
  } finally {
    // a run still going would hold a graceful stop until it ends
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  }
  return rows;
}
