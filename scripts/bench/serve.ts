import { parseEnv } from "../../src/env";
import { handleTrpc, TRPC_ENDPOINT } from "../../src/server/api/http";
import { handleRestV1, REST_ENDPOINT } from "../../src/server/api/openapi";
import { handleMcp, MCP_ENDPOINT } from "../../src/server/mcp/http";
import { createApp, health } from "../../src/server/app";
import { serve } from "../../src/test/http-server";

/**
 * The bench's HTTP server: the same tRPC handler the Next route runs, on node:http, in a process
 * of its own (so that the load's clients do not share its event loop). BENCH_PORT, and the usual
 * environment for the database.
 */
// BENCH_WORKER=1: this process also runs remember (the responsiveness section), as the app does
const app = await createApp({ env: parseEnv(), worker: process.env.BENCH_WORKER === "1" });
const server = await serve((path) => {
  if (path === "/api/health") return async () => Response.json(await health(app));
  if (path.startsWith(TRPC_ENDPOINT)) return (req) => handleTrpc(req, app);
  if (path.startsWith(REST_ENDPOINT)) return (req) => handleRestV1(req, app);
  if (path === MCP_ENDPOINT) return (req) => handleMcp(req, app);
  return undefined;
}, Number(process.env.BENCH_PORT ?? 3999));
// BENCH_SERVER_PROF=<dir>: a CPU profile of this process, written when it is told to stop
const profiler = process.env.BENCH_SERVER_PROF ? await startProfile() : null;
async function startProfile() {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return session;
}
process.on("SIGTERM", () => {
  void (async () => {
    if (!profiler) return;
    const { profile } = await profiler.post("Profiler.stop");
    const { writeFileSync, mkdirSync } = await import("node:fs");
    mkdirSync(process.env.BENCH_SERVER_PROF!, { recursive: true });
    writeFileSync(`${process.env.BENCH_SERVER_PROF}/serve-${process.pid}.cpuprofile`, JSON.stringify(profile));
  })()
    .then(() => server.close())
    .then(() => app.close())
    .then(() => process.exit(0));
});
