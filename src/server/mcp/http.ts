import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { INTERNAL_MESSAGE } from "../api/errors";
import { isCrossSite } from "../api/http";
import type { App } from "../app";
import type { Caller } from "../auth/caller";
import { callerFromRequest } from "../auth/request";
import { logError, UnauthorizedError } from "../errors";
import { admitted, stoppingError, STOPPING_RETRY_MS } from "../requests";
import { createMcpServer } from "./server";

export const MCP_ENDPOINT = "/api/mcp";

/** the transport's own bound on a body (4 MiB), raised to fit the longest text remember takes */
const MIN_BODY_BYTES = 4 * 1024 * 1024;

/** A JSON-RPC error answer, as the SDK's transport writes its own. */
function refusal(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** the longest message of the SDK's passed on as it is */
const MAX_SDK_MESSAGE = 300;

/**
 * A JSON-RPC error of code -32603 as the client should see it. Our handlers catch everything and
 * say INTERNAL_MESSAGE for what is really internal (logged there): that stays. Any other -32603
 * is the SDK refusing the request itself (params its schemas refuse, a resource URI too long):
 * -32602, with zod's issues as "field: message", or the SDK's short message.
 */
function readable(error: RpcError): RpcError {
  if (error.code !== -32603) return error;
  if (error.message === INTERNAL_MESSAGE) return error;
  let issues: unknown;
  try {
    issues = JSON.parse(error.message);
  } catch {
    issues = null;
  }
  if (Array.isArray(issues) && issues.length > 0 && issues.every((i: { path?: unknown; message?: unknown }) => Array.isArray(i.path) && typeof i.message === "string")) {
    // the field as a tool's author names it: "arguments", not "params.arguments"
    const said = (issues as { path: (string | number)[]; message: string }[]).map((i) => `${(i.path[0] === "params" ? i.path.slice(1) : i.path).join(".") || "the request"}: ${i.message}`);
    return { code: -32602, message: `invalid request, ${said.join("; ")}` };
  }
  const message = error.message.length > MAX_SDK_MESSAGE ? `${error.message.slice(0, MAX_SDK_MESSAGE)}…` : error.message;
  return { code: -32602, message: `invalid request: ${message}` };
}

/**
 * The SDK answers a request whose params its own schemas refuse (tools/call with arguments that
 * are not an object, say) with -32603, Internal error, and zod's issues as JSON for a message:
 * here that is -32602, Invalid params, with the field; a real internal error shows nothing of it.
 * And McpError's "MCP error -32602: " prefix goes: the code field says it.
 */
async function withReadableErrors(res: Response): Promise<Response> {
  if (!res.headers.get("content-type")?.includes("application/json")) return res;
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: res.status, headers: res.headers });
  }
  let changed = false;
  const fix = (m: unknown): unknown => {
    const e = (m as { error?: RpcError } | null)?.error;
    if (typeof e?.code !== "number" || typeof e.message !== "string") return m;
    // McpError puts "MCP error -32602: " before its message: the code is said already
    const message = e.message.replace(/^MCP error -?\d+: /, "");
    if (e.code !== -32603 && message === e.message) return m;
    changed = true;
    return { ...(m as object), error: readable({ ...e, message }) };
  };
  const fixed = Array.isArray(body) ? body.map(fix) : fix(body);
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(changed ? JSON.stringify(fixed) : text, { status: res.status, headers });
}

/**
 * /api/mcp: MCP's Streamable HTTP, stateless. The caller is found first, as for every route
 * (no or bad credentials: 401 before any MCP processing); then each POST gets a transport and
 * an McpServer of its own, bound to that caller, answered in JSON (no SSE stream). GET (the
 * server-to-client stream) and DELETE (ending a session) have nothing to do without sessions:
 * 405, which the SDK's client expects of such a server.
 */
export function handleMcp(req: Request, app: App): Promise<Response> {
  // while the process stops: refused, in JSON-RPC's words, with when to come back (requests.ts)
  const stopping = () => refusal(503, -32000, stoppingError().message, { "retry-after": String(Math.ceil(STOPPING_RETRY_MS / 1000)) });
  return admitted(app.requests, () => answerMcp(req, app), stopping);
}

async function answerMcp(req: Request, app: App): Promise<Response> {
  let caller: Caller | null;
  try {
    caller = await callerFromRequest(app, req.headers);
  } catch (e) {
    logError("MCP: the caller could not be found", e);
    return refusal(500, -32603, INTERNAL_MESSAGE);
  }
  if (!caller) return refusal(401, -32001, new UnauthorizedError().message, { "www-authenticate": 'Bearer realm="gligabao"' });
  // a session cookie rides along on any site's request: only a key, or our own pages, may use it
  if (caller.kind === "user" && isCrossSite(req.headers, app.env.GB_PUBLIC_URL)) {
    return refusal(403, -32003, "a signed-in session can only call MCP from this app's own pages; send an API key");
  }
  if (req.method !== "POST") return refusal(405, -32000, "Method not allowed: this MCP server is stateless; POST JSON-RPC messages", { allow: "POST" });

  const server = createMcpServer(app, caller);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: Math.max(MIN_BODY_BYTES, 2 * app.env.GB_MAX_TEXT_BYTES + 64 * 1024),
  });
  try {
    await server.connect(transport);
    // in JSON mode the answer is complete when it resolves: the server can close after it
    return await withReadableErrors(await transport.handleRequest(req));
  } catch (e) {
    logError("MCP request failed", e);
    return refusal(500, -32603, INTERNAL_MESSAGE);
  } finally {
    await server.close();
  }
}
