import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { EnvironmentVariables } from '../config/env';
import { RedisThrottlerStorage } from './redis-throttler.storage';

/** The storage lives in its own module so Nest owns its lifecycle (connect, then quit on close). */
@Module({ providers: [RedisThrottlerStorage], exports: [RedisThrottlerStorage] })
export class RateLimitStorageModule {}

/**
 * RATE_LIMIT_PER_MINUTE requests per minute per token, counted in Redis so the limit holds across
 * api processes. The guard itself (TokenThrottlerGuard) is an APP_GUARD in ApiModule, after
 * AbilitiesGuard.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStorageModule],
      inject: [EnvironmentVariables, RedisThrottlerStorage],
      useFactory: (config: EnvironmentVariables, storage: RedisThrottlerStorage) => ({
        throttlers: [{ name: 'default', ttl: 60_000, limit: config.RATE_LIMIT_PER_MINUTE }],
        storage,
        skipIf: () => config.RATE_LIMIT_PER_MINUTE === 0,
      }),
    }),
  ],
})
export class RateLimitModule {}
