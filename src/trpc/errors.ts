import { TRPCClientError } from "@trpc/client";

/*
 * Reading the API's errors in the pages. The server's errorFormatter puts the tRPC code (and,
 * for BAD_REQUEST, the field) in `data`; its messages are written to be shown as they are.
 */

/** Codes that mean "this request will not work if sent again": not retried, shown at once. */
const FINAL = new Set(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "BAD_REQUEST", "CONFLICT", "TOO_MANY_REQUESTS"]);

export function errorCode(error: unknown): string | null {
  if (!(error instanceof TRPCClientError)) return null;
  const data: unknown = error.data;
  return data && typeof data === "object" && "code" in data && typeof data.code === "string" ? data.code : null;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return "something went wrong";
}

/** BAD_REQUEST: the input field the message is about (e.g. "text", "source.speaker"), when the server names one. */
export function errorField(error: unknown): string | null {
  if (!(error instanceof TRPCClientError)) return null;
  const data: unknown = error.data;
  return data && typeof data === "object" && "field" in data && typeof data.field === "string" ? data.field : null;
}

/** The message of a BAD_REQUEST about `field`, without the "field: " the server puts first; null when it is about something else. */
export function fieldError(error: unknown, field: string): string | null {
  if (errorCode(error) !== "BAD_REQUEST" || errorField(error) !== field) return null;
  const message = errorMessage(error);
  return message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;
}

export const isUnauthorized = (error: unknown) => errorCode(error) === "UNAUTHORIZED";

/** TanStack Query's `retry`: network hiccups and 5xx a few times, the API's refusals never. */
export function shouldRetry(failures: number, error: unknown): boolean {
  const code = errorCode(error);
  return !(code && FINAL.has(code)) && failures < 2;
}
