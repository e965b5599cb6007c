import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { EnvironmentVariables } from '../config/env';
import { RedisThrottlerStorage } from './redis-throttler.storage';

@Module({ providers: [RedisThrottlerStorage], exports: [RedisThrottlerStorage] })
export class RateLimitStorageModule {}

/** RATE_LIMIT_PER_MINUTE per token across api processes; the guard is an APP_GUARD in ApiModule. */
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
