import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Serves fetch-style handlers (the ones our Next routes call) on 127.0.0.1, so tests go through
 * real HTTP without starting Next.
 */
export type Handler = (req: Request) => Promise<Response>;

async function toRequest(req: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  return new Request(new URL(req.url ?? "/", base), { method: req.method, headers, body });
}

export async function serve(route: (path: string) => Handler | undefined, port = 0): Promise<{ url: string; close(): Promise<void> }> {
  let base = "";
  const server: Server = createServer((req, res) => {
    void (async () => {
      const request = await toRequest(req, base);
      const handler = route(new URL(request.url).pathname);
      const response = handler ? await handler(request) : new Response("not found", { status: 404 });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) for await (const chunk of response.body) res.write(chunk);
      res.end();
    })().catch((e: unknown) => {
      res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
