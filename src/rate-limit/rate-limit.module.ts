import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { EnvironmentVariables } from '../config/env';
import { byBackend } from '../queue/queue-backend';
import { RateLimitRepository } from './rate-limit.repository';
import { RedisThrottlerStorage } from './redis-throttler.storage';
import { PostgresThrottlerStorage, SharedThrottlerStorage } from './shared-throttler.storage';

/** The storage of QUEUE_BACKEND: Redis, or table rate_limits in PostgreSQL. */
@Module({
  providers: [
    RateLimitRepository,
    {
      provide: SharedThrottlerStorage,
      inject: [EnvironmentVariables, RateLimitRepository],
      useFactory: (config: EnvironmentVariables, repository: RateLimitRepository): SharedThrottlerStorage =>
        byBackend<SharedThrottlerStorage>(config, {
          redis: () => new RedisThrottlerStorage(config),
          postgres: () => new PostgresThrottlerStorage(repository, config.QUEUE_PREFIX),
        }),
    },
  ],
  exports: [SharedThrottlerStorage],
})
export class RateLimitStorageModule {}

/** RATE_LIMIT_PER_MINUTE per token across api processes; the guard is an APP_GUARD in ApiModule. */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStorageModule],
      inject: [EnvironmentVariables, SharedThrottlerStorage],
      useFactory: (config: EnvironmentVariables, storage: SharedThrottlerStorage) => ({
        throttlers: [{ name: 'default', ttl: 60_000, limit: config.RATE_LIMIT_PER_MINUTE }],
        storage,
        skipIf: () => config.RATE_LIMIT_PER_MINUTE === 0,
      }),
    }),
  ],
})
export class RateLimitModule {}
