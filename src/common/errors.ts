/**
 * Domain errors carry a code; AllExceptionsFilter maps each code to the API's status and body
 * (docs/api.md#errors). Services throw these, never HTTP exceptions.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
}

/** Unknown resource, or one of another app: the two are indistinguishable by design. */
export class NotFoundError extends DomainError {
  readonly code = 'NotFound';
  constructor() {
    super('Not Found');
  }
}

/** 422 with `errors` keyed by dotted snake_case request paths. */
export class ValidationFailedError extends DomainError {
  readonly code = 'ValidationFailed';
  constructor(readonly errors: Record<string, string[]>) {
    super(validationSummary(errors));
  }

  static of(path: string, message: string): ValidationFailedError {
    return new ValidationFailedError({ [path]: [message] });
  }
}

export class IdempotencyConflictError extends DomainError {
  readonly code = 'IdempotencyConflict';
}

/** 409: the request conflicts with the resource's state (cancelling a completed notification). */
export class StateConflictError extends DomainError {
  readonly code = 'StateConflict';
}

/**
 * Error paths a 422 body lists at most. The message counts every error ("(and N more errors)"),
 * so the body stays small however much of the request was wrong.
 */
export const MAX_REPORTED_ERRORS = 50;

/** The first MAX_REPORTED_ERRORS paths of a bag, in order, without a prototype like the bag itself. */
export function reportedErrors(errors: Record<string, string[]>): Record<string, string[]> {
  const out = Object.create(null) as Record<string, string[]>;
  let count = 0;
  for (const path in errors) {
    if (count++ === MAX_REPORTED_ERRORS) break;
    out[path] = errors[path];
  }
  return out;
}

/** "<first error>[ (and N more error[s])]", as docs/api.md#errors specifies. */
export function validationSummary(errors: Record<string, string[]>): string {
  const messages = Object.values(errors).flat();
  const rest = messages.length - 1;
  if (rest <= 0) return messages[0] ?? 'The given data was invalid.';
  return `${messages[0]} (and ${rest} more error${rest === 1 ? '' : 's'})`;
}
