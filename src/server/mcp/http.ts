import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { INTERNAL_MESSAGE } from "../api/errors";
import { isCrossSite } from "../api/http";
import type { App } from "../app";
import type { Caller } from "../auth/caller";
import { callerFromRequest } from "../auth/request";
import { logError, UnauthorizedError } from "../errors";
import { createMcpServer } from "./server";

export const MCP_ENDPOINT = "/api/mcp";

/** the transport's own bound on a body (4 MiB), raised to fit the longest text remember takes */
const MIN_BODY_BYTES = 4 * 1024 * 1024;

/** A JSON-RPC error answer, as the SDK's transport writes its own. */
function refusal(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

/**
 * /api/mcp: MCP's Streamable HTTP, stateless. The caller is found first, as for every route
 * (no or bad credentials: 401 before any MCP processing); then each POST gets a transport and
 * an McpServer of its own, bound to that caller, answered in JSON (no SSE stream). GET (the
 * server-to-client stream) and DELETE (ending a session) have nothing to do without sessions:
 * 405, which the SDK's client expects of such a server.
 */
export async function handleMcp(req: Request, app: App): Promise<Response> {
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
    return await transport.handleRequest(req);
  } catch (e) {
    logError("MCP request failed", e);
    return refusal(500, -32603, INTERNAL_MESSAGE);
  } finally {
    await server.close();
  }
}
