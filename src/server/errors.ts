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
