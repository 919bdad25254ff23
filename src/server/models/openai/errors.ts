import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { isModelError, ModelError } from "../types";

/**
 * Statuses of a server that is busy or away rather than of a wrong request (the same the SDK
 * retries): request timeout, conflict, too many requests, and every 5xx.
 */
const TRANSIENT_STATUS = (status: number): boolean => status === 408 || status === 409 || status === 429 || status >= 500;

/**
 * Turn what the SDK throws (after its own retries) into a ModelError that says what happened in
 * words an operator can act on: timed out, HTTP status, or server unreachable.
 */
export function toModelError(err: unknown, model: string, request: unknown, timeoutMs: number): ModelError {
  if (isModelError(err)) return err;
  const details = { model, request, cause: err };
  if (err instanceof APIConnectionTimeoutError) {
    return new ModelError(`request to model ${model} timed out (timeout ${timeoutMs} ms)`, { ...details, transient: true });
  }
  if (err instanceof APIConnectionError) {
    return new ModelError(`could not reach the model server for ${model}: ${err.message}`, { ...details, transient: true });
  }
  if (err instanceof APIError) {
    const status = err.status ?? "no status";
    return new ModelError(`model ${model} call failed with HTTP ${status}: ${err.message}`, {
      ...details,
      response: err.error,
      transient: typeof err.status === "number" && TRANSIENT_STATUS(err.status),
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ModelError(`model ${model} call failed: ${message}`, details);
}
