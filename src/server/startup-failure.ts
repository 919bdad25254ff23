import { StartupError } from "./db/startup-error";

/**
 * The server could not start (src/instrumentation.ts): say why on stderr and exit non-zero, so
 * that a supervisor sees a failed start rather than a server answering 500 forever. A
 * StartupError's message says all (what, where, why, what to do); anything else is unforeseen
 * and keeps its stack.
 */
export function reportStartupFailure(e: unknown): never {
  const detail = e instanceof StartupError ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e);
  console.error(`gligabao could not start: ${detail}`);
  process.exit(1);
}
