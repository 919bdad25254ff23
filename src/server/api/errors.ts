import { TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { APIError } from "better-auth/api";
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  UnauthorizedError,
  ValidationError,
} from "../errors";
import { ModelError } from "../models/types";

const AUTH_CODES: Record<string, TRPC_ERROR_CODE_KEY> = {
  BAD_REQUEST: "BAD_REQUEST",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  UNPROCESSABLE_ENTITY: "BAD_REQUEST",
  TOO_MANY_REQUESTS: "TOO_MANY_REQUESTS",
};

/** better-auth's APIError, also from another bundled copy of it (where instanceof fails). */
function isAuthError(e: unknown): e is APIError {
  return e instanceof APIError || (e instanceof Error && e.name === "APIError" && "status" in e);
}

/** The one place domain errors become answers. Unknown errors never leak their message. */
export function toTRPCError(error: TRPCError, path: string): TRPCError {
  const cause = error.cause;
  if (cause instanceof DomainError) {
    const code =
      cause instanceof NotFoundError
        ? "NOT_FOUND"
        : cause instanceof ConflictError
          ? "CONFLICT"
          : cause instanceof PayloadTooLargeError
            ? "PAYLOAD_TOO_LARGE"
            : cause instanceof UnauthorizedError
              ? "UNAUTHORIZED"
              : cause instanceof ForbiddenError
                ? "FORBIDDEN"
                : cause instanceof RateLimitedError
                  ? "TOO_MANY_REQUESTS"
                  : "BAD_REQUEST";
    return new TRPCError({ code, message: cause.message, cause });
  }
  // better-auth refused (a closed sign-up, a weak password): its status and message are safe to show
  if (isAuthError(cause)) {
    const code = AUTH_CODES[String(cause.status)] ?? "BAD_REQUEST";
    return new TRPCError({ code, message: cause.body?.message ?? cause.message, cause });
  }
  // the model server failed (after its retries): the caller's request was fine
  if (cause instanceof ModelError) return new TRPCError({ code: "BAD_GATEWAY", message: cause.message, cause });
  if (error.code === "INTERNAL_SERVER_ERROR") {
    console.error(`tRPC ${path} failed`, cause ?? error);
    return new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "internal error" });
  }
  return error;
}

/** The same mapping for the REST routes: an HTTP status and a message safe to show. */
export function toHttpError(e: unknown): { status: number; message: string; retryAfterMs?: number } {
  if (e instanceof UnauthorizedError) return { status: 401, message: e.message };
  if (e instanceof ForbiddenError) return { status: 403, message: e.message };
  if (e instanceof RateLimitedError) return { status: 429, message: e.message, retryAfterMs: e.retryAfterMs };
  if (e instanceof NotFoundError) return { status: 404, message: e.message };
  if (e instanceof ConflictError) return { status: 409, message: e.message };
  if (e instanceof ValidationError) return { status: 400, message: e.message };
  if (e instanceof PayloadTooLargeError) return { status: 413, message: e.message };
  console.error("REST route failed", e);
  return { status: 500, message: "internal error" };
}
