import { createServer } from "node:http";
import { parseEnv } from "../../src/env";
import { handleTrpc } from "../../src/server/api/http";
import { createApp, health } from "../../src/server/app";

/**
 * The bench's HTTP server: the same tRPC handler the Next route runs, on node:http, in a process
 * of its own (so that the load's clients do not share its event loop). BENCH_PORT, and the usual
 * environment for the database.
 */
const app = await createApp({ env: parseEnv(), worker: false });
const port = Number(process.env.BENCH_PORT ?? 3999);
createServer((req, res) => {
  void (async () => {
    const url = `http://127.0.0.1:${port}${req.url ?? "/"}`;
    if (req.url === "/api/health") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(health(app)));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const response = await handleTrpc(new Request(url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined }), app);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  })().catch((e: unknown) => {
    res.writeHead(500).end(String(e));
  });
}).listen(port, "127.0.0.1");
process.on("SIGTERM", () => {
  void app.close().then(() => process.exit(0));
});
