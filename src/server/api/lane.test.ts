import { createHash } from "node:crypto";
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type Lane, laneListener, laneOf, originOf } from "./lane";

const LANES: Lane[] = [
  { prefix: "/api/trpc/", methods: ["GET", "POST"], handle: async () => new Response("trpc") },
  { prefix: "/api/v1/", methods: ["GET", "POST", "DELETE"], handle: async () => new Response("rest") },
];

describe("laneOf", () => {
  it("takes a lane's prefix with one of its methods, and leaves the rest (and any path holding %) to Next", () => {
    expect(laneOf(LANES, "POST", "/api/trpc/query.ask")?.prefix).toBe("/api/trpc/");
    expect(laneOf(LANES, "GET", "/api/trpc/system.health?input=%7B%7D")?.prefix).toBe("/api/trpc/");
    expect(laneOf(LANES, "DELETE", "/api/v1/datasets/x")?.prefix).toBe("/api/v1/");
    expect(laneOf(LANES, "OPTIONS", "/api/trpc/query.ask")).toBeNull();
    expect(laneOf(LANES, "PUT", "/api/trpc/query.ask")).toBeNull();
    expect(laneOf(LANES, "GET", "/api/v1/remember/%E0")).toBeNull();
    expect(laneOf(LANES, "GET", "/api/trpcx")).toBeNull();
    expect(laneOf(LANES, "GET", "/api/health")).toBeNull();
    expect(laneOf(LANES, "GET", "/admin")).toBeNull();
    expect(laneOf(LANES, undefined, "/api/v1/datasets")).toBeNull();
  });
});

describe("originOf", () => {
  it("is the Host header's origin when it names a host, else http://localhost", () => {
    expect(originOf("127.0.0.1:3000")).toBe("http://127.0.0.1:3000");
    expect(originOf("Example.COM")).toBe("http://example.com");
    expect(originOf("[::1]:8080")).toBe("http://[::1]:8080");
    for (const bad of [undefined, "", "exa mple", "a@b:c", "[::1", "host/path", "h:99999"]) expect(originOf(bad), String(bad)).toBe("http://localhost");
  });
});

describe("laneListener on a node:http server", () => {
  let server: Server | null = null;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = null;
  });

  async function listen(lanes: Lane[], logged: string[] = []): Promise<string> {
    const listener = laneListener(lanes, [["X-Content-Type-Options", "nosniff"]], (m) => logged.push(m));
    server = createServer((req, res) => {
      if (!listener(req, res)) {
        res.statusCode = 404;
        res.end("not a lane's");
      }
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("hands the handler the request as sent (method, URL, headers, a streamed body) and sends its answer whole", async () => {
    const seen: { method: string; url: string; header: string | null; digest: string; bytes: number }[] = [];
    const base = await listen([
      {
        prefix: "/api/v1/",
        methods: ["POST"],
        handle: async (req) => {
          const body = new Uint8Array(await req.arrayBuffer());
          seen.push({ method: req.method, url: req.url, header: req.headers.get("x-test"), digest: createHash("sha256").update(body).digest("hex"), bytes: body.length });
          const headers = new Headers({ "content-type": "application/json" });
          headers.append("set-cookie", "a=1; Path=/");
          headers.append("set-cookie", "b=2; Path=/");
          return new Response(JSON.stringify({ bytes: body.length, echo: "é".repeat(100_000) }), { status: 201, headers });
        },
      },
    ]);
    const body = new Uint8Array(5 * 1024 * 1024).map((_, i) => i % 251);
    const res = await fetch(`${base}/api/v1/remember?x=1`, { method: "POST", headers: { "x-test": "yes" }, body });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    const answer = (await res.json()) as { bytes: number; echo: string };
    expect(answer.bytes).toBe(body.length);
    expect(answer.echo.length).toBe(100_000);
    expect(seen).toEqual([{ method: "POST", url: expect.stringMatching(/\/api\/v1\/remember\?x=1$/), header: "yes", digest: createHash("sha256").update(body).digest("hex"), bytes: body.length }]);
    // not a lane's: the server's own listener answers
    expect((await fetch(`${base}/api/health`)).status).toBe(404);
    expect((await fetch(`${base}/api/v1/remember`, { method: "PUT" })).status).toBe(404);
  });

  it("a body the handler left unread is dropped once answered: the connection carries the next call", async () => {
    const base = await listen([
      { prefix: "/api/v1/refuse", methods: ["POST"], handle: async () => new Response("refused", { status: 401 }) },
      { prefix: "/api/v1/read", methods: ["POST"], handle: async (req) => new Response(`read ${(await req.text()).length}`) },
    ]);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const port = Number(new URL(base).port);
    const send = (path: string, body: string) =>
      new Promise<{ status: number; text: string; socket: number }>((resolve, reject) => {
        const r = request({ host: "127.0.0.1", port, method: "POST", path, agent, headers: { "content-length": Buffer.byteLength(body) } }, (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text, socket: res.socket?.localPort ?? 0 }));
        });
        r.on("error", reject);
        r.setTimeout(5_000, () => r.destroy(new Error("no answer in 5 s: the connection is stuck")));
        r.end(body);
      });
    try {
      const big = "y".repeat(1_000_000);
      const refused = await send("/api/v1/refuse", big);
      expect(refused).toMatchObject({ status: 401, text: "refused" });
      const read = await send("/api/v1/read", "hello");
      expect(read).toMatchObject({ status: 200, text: "read 5" });
      expect(read.socket).toBe(refused.socket);
    } finally {
      agent.destroy();
    }
  });

  it("a handler that throws: a 500 in the API's error shape, and the reason is logged", async () => {
    const logged: string[] = [];
    const base = await listen(
      [
        {
          prefix: "/api/trpc/",
          methods: ["GET"],
          handle: async () => {
            throw new Error("boom");
          },
        },
      ],
      logged,
    );
    const res = await fetch(`${base}/api/trpc/system.health`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ code: "INTERNAL_SERVER_ERROR", message: "internal error" });
    expect(logged).toEqual(["API GET /api/trpc/system.health: the answer could not be sent"]);
  });
});
