import { parseEnv } from "../../src/env";
import { handleTrpc, TRPC_ENDPOINT } from "../../src/server/api/http";
import { createApp, health } from "../../src/server/app";
import { installForegroundCount } from "../../src/server/foreground";
import { serve } from "../../src/test/http-server";

/**
 * The bench's HTTP server: the same tRPC handler the Next route runs, on node:http, in a process
 * of its own (so that the load's clients do not share its event loop). BENCH_PORT, and the usual
 * environment for the database.
 */
// BENCH_WORKER=1: this process also runs remember (the responsiveness section), as the app does
// as instrumentation.ts does for the app: a remember lets the requests in flight go first
installForegroundCount();
const app = await createApp({ env: parseEnv(), worker: process.env.BENCH_WORKER === "1" });
const server = await serve((path) => {
  if (path === "/api/health") return async () => Response.json(await health(app));
  if (path.startsWith(TRPC_ENDPOINT)) return (req) => handleTrpc(req, app);
  return undefined;
}, Number(process.env.BENCH_PORT ?? 3999));
process.on("SIGTERM", () => {
  void server
    .close()
    .then(() => app.close())
    .then(() => process.exit(0));
});
