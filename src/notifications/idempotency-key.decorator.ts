import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ValidationFailedError } from '../common/errors';

/** `Idempotency-Key`: optional, 1..255 printable ASCII characters, else 422 `idempotency_key`. */
export function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[\x20-\x7e]{1,255}$/.test(value)) {
    throw ValidationFailedError.of('idempotency_key', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.');
  }
  return value;
}

export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  parseIdempotencyKey(context.switchToHttp().getRequest().headers['idempotency-key']),
);
