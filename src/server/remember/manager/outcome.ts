import { ERROR_BRAND, errorKind } from "../../errors";
import type { EndedRun } from "./queue";
import type { AttemptKind, Hold } from "./types";

/*
 * How an attempt of a remember run ended. Pure: what `execute` threw (outcomeOf), and whether the
 * attempt still holds its run, read from the run's row (attemptEnding). Errors are recognised by
 * their brand (errors.ts) rather than `instanceof`: the built app bundles server code twice, and
 * a class from one bundle is not the class of the other.
 *
 *   lease_lost  the pipeline found it no longer holds the run (a fenced write wrote nothing)
 *   shutdown    the process is stopping: the run goes back to the queue, no attempt counted
 *   transient   an outage (model server, network, database): retried with backoff
 *   permanent   anything else: the run fails
 */

export type Outcome = "lease_lost" | "shutdown" | "transient" | "permanent";

/** This process lost the run: its lease was taken back, or a fenced write found another attempt. */
export class LeaseLostError extends Error {
  readonly [ERROR_BRAND] = "lease_lost";
  constructor(message: string) {
    super(message);
    this.name = "LeaseLostError";
  }
}

/** The reason a shutdown aborts the runs still in flight when its grace period ends. */
export class ShutdownError extends Error {
  readonly [ERROR_BRAND] = "shutdown";
  constructor(message = "the process is shutting down: the run goes back to the queue") {
    super(message);
    this.name = "ShutdownError";
  }
}

/** A failure worth trying again later (thrown by our own code; the model's errors carry `transient`). */
export class TransientError extends Error {
  readonly transient = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TransientError";
  }
}

/**
 * SQLSTATE classes and codes of a database that is away or overloaded, not of a wrong statement:
 * connection exceptions (08), serialization failures and deadlocks (40001, 40P01), insufficient
 * resources (53), operator intervention (57P01–57P05: shutdown, crash, cannot connect now), and
 * a lock timeout (55P03).
 */
const TRANSIENT_SQLSTATE = /^(08|53|57P0[1-5]$|40001$|40P01$|55P03$)/;
/** Node's and postgres.js's codes for a connection that broke or never came. */
const TRANSIENT_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

function field(e: unknown, name: string): unknown {
  return typeof e === "object" && e !== null && name in e ? (e as Record<string, unknown>)[name] : undefined;
}

/** The error and its causes, outermost first (drizzle wraps a driver's error as its cause). */
function* chain(e: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  for (let err = e; err !== undefined && err !== null && !seen.has(err); err = field(err, "cause")) {
    seen.add(err);
    yield err;
  }
}

export function outcomeOf(e: unknown): Outcome {
  for (const err of chain(e)) {
    const brand = errorKind(err);
    if (brand === "lease_lost" || brand === "shutdown") return brand;
  }
  for (const err of chain(e)) {
    if (field(err, "transient") === true) return "transient";
    const code = field(err, "code");
    if (typeof code === "string" && (TRANSIENT_SQLSTATE.test(code) || TRANSIENT_CODES.has(code))) return "transient";
  }
  return "permanent";
}

/** What the manager does at the end of an attempt: record it as one of these kinds, or nothing. */
export type Ending = Exclude<AttemptKind, "abandoned"> | "lost" | "done";

/**
 * How an attempt ends, from its run's row first: a run this attempt no longer holds is someone
 * else's (lost: nothing is written), one it ended is done. Only a run it still holds is ended by
 * what was thrown: a shutdown (`stopping`: this process aborted it to stop) hands it back; an
 * outage retries it; anything else fails it, and so does a pipeline that returned without
 * finishing its run log. A lost lease thrown while the row says the run is held would be a fencing
 * bug; the row wins, and the run is retried rather than failed (no accepted text is lost).
 */
export function attemptEnding(a: { threw: boolean; thrown?: unknown; hold: Hold; stopping: boolean }): Ending {
  if (a.hold === "lost") return "lost";
  if (a.hold === "finished") return "done";
  if (!a.threw) return "permanent";
  const outcome = outcomeOf(a.thrown);
  if (outcome === "shutdown" || a.stopping) return "handed_back";
  return outcome === "permanent" ? "permanent" : "transient";
}

export const endedMessage = (r: EndedRun, kind: AttemptKind): string =>
  `remember run ${r.id} (dataset ${r.datasetId}): attempt ended (${kind}: ${r.reason}); ${r.status === "failed" ? `failed (${r.error})` : "queued again"}`;
