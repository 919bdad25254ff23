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
 * The domain errors verbs throw. One adapter (api/errors.ts) maps them to tRPC and REST answers;
 * anything else is an internal error whose message never reaches a client.
 */
export class DomainError extends Error {}

export class NotFoundError extends DomainError {
  constructor(what: string, key: string) {
    super(`${what} not found: ${key}`);
    this.name = "NotFoundError";
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super(message);
    this.name = "ConflictError";
  }
}

/** Input that passed the schema but is still wrong; `field` names the input field. */
export class ValidationError extends DomainError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "ValidationError";
  }
}

export class PayloadTooLargeError extends DomainError {
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
  constructor(message = "sign in or send an API key (Authorization: Bearer …)") {
    super(message);
    this.name = "UnauthorizedError";
  }
}

/** Known caller, not allowed: a viewer writing, a member managing keys. */
export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super(message);
    this.name = "ForbiddenError";
  }
}

export class RateLimitedError extends DomainError {
  constructor(
    readonly retryAfterMs: number,
    what: string,
  ) {
    super(`rate limit for ${what} reached; retry in ${Math.ceil(retryAfterMs / 1000)} s`);
    this.name = "RateLimitedError";
  }
}
