import { TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { APIError } from "better-auth/api";
import { type ErrorKind, errorKind, logError } from "../errors";

const AUTH_CODES: Record<string, TRPC_ERROR_CODE_KEY> = {
  BAD_REQUEST: "BAD_REQUEST",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  UNPROCESSABLE_ENTITY: "BAD_REQUEST",
  TOO_MANY_REQUESTS: "TOO_MANY_REQUESTS",
};

/**
 * Each brand (errors.ts) and its answer. Decided by the brand, never by `instanceof`: the built
 * app has two copies of our classes. A model server that failed (after its retries) is a bad
 * gateway: the caller's request was fine; a store that did not answer (Redis) is unavailable.
 */
const ANSWERS: Partial<Record<ErrorKind, { code: TRPC_ERROR_CODE_KEY; status: number }>> = {
  not_found: { code: "NOT_FOUND", status: 404 },
  conflict: { code: "CONFLICT", status: 409 },
  validation: { code: "BAD_REQUEST", status: 400 },
  payload_too_large: { code: "PAYLOAD_TOO_LARGE", status: 413 },
  unauthorized: { code: "UNAUTHORIZED", status: 401 },
  forbidden: { code: "FORBIDDEN", status: 403 },
  rate_limited: { code: "TOO_MANY_REQUESTS", status: 429 },
  unavailable: { code: "SERVICE_UNAVAILABLE", status: 503 },
  model: { code: "BAD_GATEWAY", status: 502 },
};

/** The answer of one of our branded errors; null for anything else. */
function answerOf(e: unknown): { code: TRPC_ERROR_CODE_KEY; status: number; message: string } | null {
  const answer = ANSWERS[errorKind(e) ?? ("" as ErrorKind)];
  return answer ? { ...answer, message: (e as Error).message } : null;
}

/** better-auth's APIError, also from another bundled copy of it (where instanceof fails). */
export function isAuthError(e: unknown): e is APIError {
  return e instanceof APIError || (e instanceof Error && e.name === "APIError" && "status" in e);
}

/** What a client is told of an unexpected failure. */
export const INTERNAL_MESSAGE = "internal error";

/** The one place domain errors become answers. Unknown errors never leak their message. */
export function toTRPCError(error: TRPCError, path: string): TRPCError {
  const cause = error.cause;
  const answer = answerOf(cause);
  if (answer) return new TRPCError({ code: answer.code, message: answer.message, cause });
  // better-auth refused (a closed sign-up, a weak password): its status and message are safe to show
  if (isAuthError(cause)) {
    const code = AUTH_CODES[String(cause.status)] ?? "BAD_REQUEST";
    return new TRPCError({ code, message: cause.body?.message ?? cause.message, cause });
  }
  if (error.code === "INTERNAL_SERVER_ERROR") {
    logError(`tRPC ${path} failed`, cause ?? error);
    return new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: INTERNAL_MESSAGE });
  }
  return error;
}

/** The same mapping for the REST routes: an HTTP status and a message safe to show. */
export function toHttpError(e: unknown): { status: number; message: string; retryAfterMs?: number } {
  const answer = answerOf(e);
  if (answer) {
    const retryAfterMs = (e as { retryAfterMs?: unknown }).retryAfterMs;
    return typeof retryAfterMs === "number" ? { status: answer.status, message: answer.message, retryAfterMs } : { status: answer.status, message: answer.message };
  }
  logError("REST route failed", e);
  return { status: 500, message: INTERNAL_MESSAGE };
}
