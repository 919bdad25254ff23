import { type ChildProcess, spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { BenchDatabase } from "./databases";
import { BENCH_KEY, pct, question, waitUp } from "./query";
import { seedGraph } from "./seed";

/*
 * The three doors to query.ask, side by side (#17): tRPC (superjson), REST (/api/v1/query, plain
 * JSON) and MCP (the `query` tool over Streamable HTTP, stateless: a server object per request),
 * on the same server process and the same 10k-fact graph, one client, one call at a time, so the
 * figure is each door's own cost on top of the same verb.
 */

export async function benchDoors(db: BenchDatabase, env: Record<string, string>, queries: number): Promise<string[][]> {
  const { datasetName, people } = await seedGraph(db.database.db, 10_000);
  if (db.name === "pglite") await db.database.close(); // one PGlite data dir admits one process
  const port = 3900 + Math.floor(Math.random() * 90);
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/bench/serve.ts"], {
    env: { ...process.env, ...env, GB_MODELS: "builtin", BENCH_PORT: String(port), GB_BOOTSTRAP_API_KEY: BENCH_KEY, GB_RATE_LIMIT_QUERY: "0" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${BENCH_KEY}` };
  const mcp = new Client({ name: "bench", version: "1" });
  try {
    await waitUp(`${base}/api/health`);
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), { requestInit: { headers: auth } }));
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...auth }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    };
    const doors: [string, (q: string) => Promise<void>][] = [
      ["tRPC", (q) => post("/api/trpc/query.ask", { json: { dataset: datasetName, question: q } })],
      ["REST", (q) => post("/api/v1/query", { dataset: datasetName, question: q })],
      [
        "MCP",
        async (q) => {
          const r = await mcp.callTool({ name: "query", arguments: { dataset: datasetName, question: q } });
          if (r.isError) throw new Error(`MCP query: ${JSON.stringify(r.content)}`);
        },
      ],
    ];
    const p50s = new Map<string, number>();
    const rows: string[][] = [["db", "door", "queries", "p50 ms", "p99 ms", "p50 vs tRPC"]];
    // interleaved, so that each door sees the same warm caches and the same background load
    const lat = new Map<string, number[]>(doors.map(([d]) => [d, []]));
    for (let i = -20; i < queries; i++) {
      for (const [name, fn] of doors) {
        const t = performance.now();
        await fn(question(i + 20, people));
        if (i >= 0) lat.get(name)!.push(performance.now() - t);
      }
    }
    for (const [name] of doors) {
      const xs = lat.get(name)!;
      p50s.set(name, pct(xs, 50));
      const ratio = pct(xs, 50) - p50s.get("tRPC")!;
      rows.push([db.name, name, String(xs.length), pct(xs, 50).toFixed(2), pct(xs, 99).toFixed(2), name === "tRPC" ? "—" : `${ratio >= 0 ? "+" : ""}${ratio.toFixed(2)} ms (${(pct(xs, 50) / p50s.get("tRPC")!).toFixed(2)}×)`]);
    }
    return rows;
  } finally {
    await mcp.close().catch(() => {});
    child.kill("SIGTERM");
  }
}
