import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { ValidationFailedError } from '../../common/errors';

/** `Idempotency-Key`: optional, sent once, 1..255 printable ASCII characters, else 422 `idempotency_key`. */
export function parseIdempotencyKey(values: string[] | undefined): string | undefined {
  if (values === undefined) return undefined;
  if (values.length !== 1) {
    throw ValidationFailedError.of('idempotency_key', 'The Idempotency-Key header must be sent only once.');
  }
  if (!/^[\x20-\x7e]{1,255}$/.test(values[0])) {
    throw ValidationFailedError.of('idempotency_key', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.');
  }
  return values[0];
}

export const IdempotencyKey = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  parseIdempotencyKey(context.switchToHttp().getRequest<IncomingMessage>().headersDistinct['idempotency-key']),
);
