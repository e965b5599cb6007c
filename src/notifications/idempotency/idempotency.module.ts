import { Module } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

/** Idempotency-Key handling (docs/api.md#idempotency): sends and Live Activity updates share it. */
@Module({ providers: [IdempotencyService, IdempotencyRepository], exports: [IdempotencyService, IdempotencyRepository] })
export class IdempotencyModule {}
