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
