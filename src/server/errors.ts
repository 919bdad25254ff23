/** The longest error text a run log keeps. */
export const MAX_ERROR = 4000;

/**
 * The message a run log keeps of an error: a database error's own words rather than its query
 * wrapper's ("Failed query: insert into …" with its parameters, which may hold the user's text).
 */
export function errorText(e: unknown): string {
  let err: unknown = e;
  while (err instanceof Error && err.message.startsWith("Failed query:") && err.cause instanceof Error) err = err.cause;
  const text = err instanceof Error ? err.message || err.name : String(err);
  return text.slice(0, MAX_ERROR);
}

/**
 * Our errors are recognised by a brand, never by `instanceof`: the built app bundles server code
 * twice (the instrumentation hook that makes the App, and the route handlers), so an error thrown
 * by one copy's class is not an instance of the other copy's. `Symbol.for` is one registry per
 * process, so the brand is the same in every copy. The remember queue's outcomes
 * (remember/manager/outcome.ts) are branded the same way.
 */
export const ERROR_BRAND: unique symbol = Symbol.for("gligabao.error");

/** What an error is; mapping code (api/errors.ts) decides by this alone. */
export type ErrorKind =
  | "not_found"
  | "conflict"
  | "validation"
  | "payload_too_large"
  | "unauthorized"
  | "forbidden"
  | "rate_limited"
  /** a store the call needs (Redis, GB_REDIS_URL) did not answer */
  | "unavailable"
  /** a model server failed or answered nonsense (models/types.ts) */
  | "model"
  /** the remember queue's: this process lost the run, or is stopping (never reach a client) */
  | "lease_lost"
  | "shutdown";

/** The brand of `e`, from any copy of our classes; null for anything else. */
export function errorKind(e: unknown): ErrorKind | null {
  if (typeof e !== "object" || e === null) return null;
  const kind = (e as { [ERROR_BRAND]?: unknown })[ERROR_BRAND];
  return typeof kind === "string" ? (kind as ErrorKind) : null;
}

const DOMAIN_KINDS = new Set<ErrorKind>(["not_found", "conflict", "validation", "payload_too_large", "unauthorized", "forbidden", "rate_limited", "unavailable"]);

/**
 * The domain errors verbs throw. One adapter (api/errors.ts) maps them to tRPC and REST answers;
 * anything else is an internal error whose message never reaches a client.
 */
export abstract class DomainError extends Error {
  abstract readonly [ERROR_BRAND]: ErrorKind;
}

export const isDomainError = (e: unknown): e is DomainError => DOMAIN_KINDS.has(errorKind(e) as ErrorKind);
export const isRateLimited = (e: unknown): e is RateLimitedError => errorKind(e) === "rate_limited";

export class NotFoundError extends DomainError {
  readonly [ERROR_BRAND] = "not_found";
  constructor(what: string, key: string) {
    super(`${what} not found: ${key}`);
    this.name = "NotFoundError";
  }
}

export class ConflictError extends DomainError {
  readonly [ERROR_BRAND] = "conflict";
  constructor(message: string) {
    super(message);
    this.name = "ConflictError";
  }
}

/** Input that passed the schema but is still wrong; `field` names the input field. */
export class ValidationError extends DomainError {
  readonly [ERROR_BRAND] = "validation";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "ValidationError";
  }
}

export class PayloadTooLargeError extends DomainError {
  readonly [ERROR_BRAND] = "payload_too_large";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "PayloadTooLargeError";
  }
}

/** No credentials, or credentials that are not (or no longer) valid. */
export class UnauthorizedError extends DomainError {
  readonly [ERROR_BRAND] = "unauthorized";
  constructor(message = "sign in or send an API key (Authorization: Bearer …)") {
    super(message);
    this.name = "UnauthorizedError";
  }
}

/** Known caller, not allowed: a viewer writing, a member managing keys. */
export class ForbiddenError extends DomainError {
  readonly [ERROR_BRAND] = "forbidden";
  constructor(message: string) {
    super(message);
    this.name = "ForbiddenError";
  }
}

export class RateLimitedError extends DomainError {
  readonly [ERROR_BRAND] = "rate_limited";
  constructor(
    readonly retryAfterMs: number,
    what: string,
  ) {
    super(`rate limit for ${what} reached; retry in ${Math.ceil(retryAfterMs / 1000)} s`);
    this.name = "RateLimitedError";
  }
}

/**
 * A store the call needs did not answer (Redis down, or refusing): the call fails and says so,
 * and what it wrote durably before (the database comes first) stays written.
 */
export class UnavailableError extends DomainError {
  readonly [ERROR_BRAND] = "unavailable";
  /** when to try again, when that is known (a process that is stopping: requests.ts) */
  readonly retryAfterMs?: number;
  constructor(what: string, reason: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(`${what} is unavailable: ${reason}`, options);
    this.name = "UnavailableError";
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** When a refused call may be tried again (TOO_MANY_REQUESTS, SERVICE_UNAVAILABLE), in ms; null when not said. */
export function retryAfterMsOf(e: unknown): number | null {
  const kind = errorKind(e);
  if (kind !== "rate_limited" && kind !== "unavailable") return null;
  const ms = (e as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof ms === "number" ? ms : null;
}

/** ioredis's words for a call made without a connection (no offline queue, retries spent, closed) */
const NO_CONNECTION = /stream isn't writeable|connection is closed|max retries per request|not ready|no redis client|ECONN|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND/i;

/**
 * A failed Redis call as the caller may see it: why in a few words, never the address, a stack
 * or the command. Anything but a lost connection or a timeout (Redis out of memory, a script
 * error) is logged here with its own words; a lost connection is logged once by the client's
 * listener (app.ts).
 */
export function redisUnavailable(what: string, e: unknown): UnavailableError {
  const message = e instanceof Error ? e.message : String(e);
  let reason = "the command failed";
  if (NO_CONNECTION.test(message)) reason = "no connection";
  else if (/timed out/i.test(message)) reason = "no answer in time";
  else logError(`${what}: a Redis call failed`, e);
  return new UnavailableError(what, reason, { cause: e });
}

/** The SQL of a drizzle "Failed query:" error, without the parameters its message carries. */
function queryText(e: Error): string | null {
  if (!e.message.startsWith("Failed query:")) return null;
  const q = (e as { query?: unknown }).query;
  if (typeof q === "string") return q;
  const text = e.message.slice("Failed query:".length);
  const params = text.lastIndexOf("\nparams:");
  return (params >= 0 ? text.slice(0, params) : text).trim();
}

/**
 * An error as a log may show it: its name and errorText (a database error's own words, never the
 * parameters of the query that failed, which hold users' texts), the SQLSTATE, the SQL text, its
 * causes the same way, and the stack frames (not the stack's first line, which repeats the message).
 */
export function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e).slice(0, MAX_ERROR);
  const lines = [`${e.name}: ${errorText(e)}`];
  let depth = 0;
  for (let err: unknown = e; err instanceof Error && depth < 5; err = err.cause, depth++) {
    const sqlText = queryText(err);
    if (sqlText) lines.push(`  query: ${sqlText.slice(0, MAX_ERROR)}`);
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string") lines.push(`  code: ${code}`);
    // a cause says something of its own (errorText already shows a database error under its query)
    if (depth > 0 && !sqlText && errorText(err) !== errorText(e)) lines.push(`  cause: ${err.name}: ${errorText(err)}`);
  }
  const frames = (e.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l));
  return [...lines, ...frames].join("\n");
}

/** Logs an unexpected failure once, with its stack and without query parameters (describeError). */
export function logError(context: string, e?: unknown): void {
  console.error(e === undefined ? context : `${context}: ${describeError(e)}`);
}
