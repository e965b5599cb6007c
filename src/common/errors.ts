/** Services throw these, never HTTP exceptions; AllExceptionsFilter maps each code (docs/api.md#errors). */
export abstract class DomainError extends Error {
  abstract readonly code: string;
}

/** Unknown, or another app's: indistinguishable by design. */
export class NotFoundError extends DomainError {
  readonly code = 'NotFound';
  constructor() {
    super('Not Found');
  }
}

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

export class StateConflictError extends DomainError {
  readonly code = 'StateConflict';
}

/** An audience took longer than AUDIENCE_STATEMENT_TIMEOUT_MS to evaluate: valid, but too costly now (503). */
export class AudienceTimedOutError extends DomainError {
  readonly code = 'AudienceTimedOut';
  constructor(readonly timeoutMs: number) {
    super(`The audience took longer than ${timeoutMs} ms to evaluate and was stopped: narrow the filter, or try again later.`);
  }
}

/** Too many audience statements running in this api process, or for this app (AUDIENCE_CONCURRENCY*): 429, Retry-After. */
export class AudienceBusyError extends DomainError {
  readonly code = 'AudienceBusy';
  /** Seconds: a count ends within AUDIENCE_STATEMENT_TIMEOUT_MS, most within a second. */
  readonly retryAfterSeconds = 1;
  constructor() {
    super('Too Many Attempts.');
  }
}

/** The message still counts every error ("(and N more errors)"). */
export const MAX_REPORTED_ERRORS = 50;

export function reportedErrors(errors: Record<string, string[]>): Record<string, string[]> {
  const out = Object.create(null) as Record<string, string[]>;
  let count = 0;
  for (const path in errors) {
    if (count++ === MAX_REPORTED_ERRORS) break;
    out[path] = errors[path];
  }
  return out;
}

export function validationSummary(errors: Record<string, string[]>): string {
  const messages = Object.values(errors).flat();
  const rest = messages.length - 1;
  if (rest <= 0) return messages[0] ?? 'The given data was invalid.';
  return `${messages[0]} (and ${rest} more error${rest === 1 ? '' : 's'})`;
}
