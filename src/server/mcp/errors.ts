import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type Role, roleAtLeast } from "../../lib/roles";
import { INTERNAL_MESSAGE } from "../api/errors";
import type { Caller } from "../auth/caller";
import { errorKind, ForbiddenError, isDomainError, logError } from "../errors";

/*
 * The MCP adapter of our errors, decided by the brand (errorKind), never by instanceof: the
 * built app has two copies of our classes. A domain error (and a model server's failure) is
 * shown with its kind and message; anything else is logged and said as "internal error".
 */

/** What a caller may be told of `e`: its kind and message, or null (log it, say INTERNAL_MESSAGE). */
function shown(e: unknown): { kind: string; message: string; retryAfterMs?: number } | null {
  const kind = errorKind(e);
  if (!kind || !(isDomainError(e) || kind === "model")) return null;
  const message = (e as Error).message;
  // rate_limited: when to try again
  const retryAfterMs = (e as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof retryAfterMs === "number" ? { kind, message, retryAfterMs } : { kind, message };
}

/** A tool's failure as its result: isError, the kind and message (structuredContent.error too). */
export function toolError(tool: string, e: unknown): CallToolResult {
  const error = shown(e);
  if (!error) logError(`MCP tool ${tool} failed`, e);
  const { kind, message } = error ?? { kind: "internal", message: INTERNAL_MESSAGE };
  return { isError: true, content: [{ type: "text", text: `${kind}: ${message}` }], structuredContent: { error: error ?? { kind, message } } };
}

/** A failed resource read, as the JSON-RPC error the SDK sends (it would send any message as it is). */
export function resourceError(uri: string, e: unknown): McpError {
  const error = shown(e);
  if (!error) logError(`MCP resource ${uri} failed`, e);
  if (!error) return new McpError(ErrorCode.InternalError, INTERNAL_MESSAGE);
  // what the request asked for is not to be had (not found, not allowed, not valid): not an internal error
  return new McpError(ErrorCode.InvalidParams, error.kind === "not_found" ? error.message : `${error.kind}: ${error.message}`);
}

/** The role check of the tRPC procedures (writeProcedure: member, adminProcedure: admin), with their words. */
export function requireRole(caller: Caller, role: Role, what: string): void {
  if (!roleAtLeast(caller.role, role)) throw new ForbiddenError(`${what} needs the role ${role} or above; this caller is a ${caller.role}`);
}
