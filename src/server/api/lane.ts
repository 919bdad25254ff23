import http from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

/*
 * The API's own lane through the built app (#16). Next answers an API call through its router,
 * its route module, its tracing, its web-stream adaptors and its gzip: measured on `npm start`
 * with 16 clients, 4.2-5.0 ms of the app's CPU a query.ask, where the same handler behind a bare
 * node:http server took 2.1-2.6. So in the built app, the calls of the tRPC and REST APIs are
 * answered before Next sees them, by the handlers their Next routes call (handleTrpc,
 * handleRestV1), on the same App (getApp), with the headers next.config.ts gives every answer.
 * What goes to Next as before: every other path, a method the route does not export (Next
 * answers OPTIONS, HEAD and 405 itself), and a path holding "%" (proxy.ts's check of its
 * percent-encoding). API answers are sent uncompressed: most are a few KB, for which gzip cost
 * the client and the app more CPU than the bytes it saved took to send (a proxy in front may
 * compress them).
 */

export interface Lane {
  /** the path prefix, e.g. "/api/trpc/" */
  prefix: string;
  /** the methods its Next route exports */
  methods: readonly string[];
  handle: (req: Request) => Promise<Response>;
}

const INSTALLED = Symbol.for("gligabao.apiLanes");

/** Whether `req` is one of a lane's calls: its prefix, one of its methods, no "%" in the path. */
export function laneOf(lanes: readonly Lane[], method: string | undefined, url: string | undefined): Lane | null {
  if (!url || !method) return null;
  const path = url.split("?", 1)[0]!;
  if (path.includes("%")) return null;
  return lanes.find((l) => path.startsWith(l.prefix) && l.methods.includes(method)) ?? null;
}

/** The request's origin by its Host header; http://localhost when it names no host (absent, empty, not a host). */
export function originOf(host: string | undefined): string {
  if (host) {
    try {
      const url = new URL(`http://${host}`);
      if (url.host === host.toLowerCase() && url.pathname === "/") return url.origin;
    } catch {
      // not a host: the default below
    }
  }
  return "http://localhost";
}

/** The fetch Request of a node request: its body streamed, as Next makes it. */
export function toFetchRequest(req: http.IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(new URL(req.url ?? "/", originOf(req.headers.host)), {
    method: req.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit);
}

/** Writes a fetch Response to a node response, with `extra` headers (those it does not set itself). */
export async function writeFetchResponse(res: http.ServerResponse, response: Response, extra: readonly (readonly [string, string])[]): Promise<void> {
  for (const [k, v] of extra) res.setHeader(k, v);
  const cookies = response.headers.getSetCookie();
  response.headers.forEach((v, k) => {
    if (k !== "set-cookie") res.setHeader(k, v);
  });
  if (cookies.length) res.setHeader("set-cookie", cookies);
  res.statusCode = response.status;
  if (!response.body) {
    res.end();
    return;
  }
  await pipeline(Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]), res);
}

/**
 * A 'request' listener for the lanes: answers a lane's call and returns true, or returns false
 * (the request is someone else's). `headers` go on every answer; `log` hears of an answer that
 * could not be sent.
 */
export function laneListener(
  lanes: readonly Lane[],
  headers: readonly (readonly [string, string])[],
  log: (message: string, error: unknown) => void,
): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
  return (req, res) => {
    const lane = laneOf(lanes, req.method, req.url);
    if (!lane) return false;
    // a body the handler did not read to its end (a call refused before its input was read):
    // dropped once the answer is sent, so the connection can carry the next request (the body's
    // stream holds the request, which Node would otherwise leave unread and the connection stuck)
    res.once("finish", () => {
      if (req.complete) return;
      req.removeAllListeners("data");
      req.on("data", () => {});
      req.resume();
    });
    void (async () => writeFetchResponse(res, await lane.handle(toFetchRequest(req)), headers))().catch((e: unknown) => {
      // the client went away (mid-request or mid-answer): nobody to answer, nothing to report
      if (req.socket.destroyed || res.destroyed) return;
      log(`API ${req.method} ${req.url?.split("?", 1)[0]}: the answer could not be sent`, e);
      if (!res.headersSent) {
        res.statusCode = 500;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ code: "INTERNAL_SERVER_ERROR", message: "internal error" }));
      } else res.destroy();
    });
    return true;
  };
}

/**
 * Answers the lanes' calls on every http.Server of this process before its other listeners (Next)
 * see them. Called once at start-up (instrumentation.ts), before the client-address stamp is
 * installed (which then runs first); idempotent.
 */
export function installApiLanes(lanes: readonly Lane[], headers: readonly (readonly [string, string])[], log: (message: string, error: unknown) => void): void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: true };
  if (proto[INSTALLED]) return;
  proto[INSTALLED] = true;
  const listener = laneListener(lanes, headers, log);
  const emit = proto.emit;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request" && listener(args[0] as http.IncomingMessage, args[1] as http.ServerResponse)) return true;
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as typeof proto.emit;
}
