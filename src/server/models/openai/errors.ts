import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { ModelError } from "../types";

/**
 * Turn what the SDK throws (after its own retries) into a ModelError that says what happened in
 * words an operator can act on: timed out, HTTP status, or server unreachable.
 */
export function toModelError(err: unknown, model: string, request: unknown, timeoutMs: number): ModelError {
  if (err instanceof ModelError) return err;
  const details = { model, request, cause: err };
  if (err instanceof APIConnectionTimeoutError) {
    return new ModelError(`request to model ${model} timed out (timeout ${timeoutMs} ms)`, details);
  }
  if (err instanceof APIConnectionError) {
    return new ModelError(`could not reach the model server for ${model}: ${err.message}`, details);
  }
  if (err instanceof APIError) {
    const status = err.status ?? "no status";
    return new ModelError(`model ${model} call failed with HTTP ${status}: ${err.message}`, { ...details, response: err.error });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ModelError(`model ${model} call failed: ${message}`, details);
}
