import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import type { RedisOptions } from 'bullmq';
import { EnvironmentVariables } from '../config/env';
import { redisOptionsFromUrl } from '../config/redis-options';
import { ObservedQueue, ObservedWorker } from './redis-status';

// Every queue and worker @nestjs/bullmq creates reports its connection errors to redisStatus.
// Set when this file is first imported, which is before any module calls registerQueue.
BullModule.queueClass = ObservedQueue;
BullModule.workerClass = ObservedWorker;

/** Workers block on Redis and must retry forever (BullMQ requires maxRetriesPerRequest: null). */
export const workerConnection = (config: Pick<EnvironmentVariables, 'REDIS_URL'>): RedisOptions => ({
  ...redisOptionsFromUrl(config.REDIS_URL),
  maxRetriesPerRequest: null,
});

/** Producers in the API answer in bounded time: no offline buffering, one retry. */
export const producerConnection = (config: Pick<EnvironmentVariables, 'REDIS_URL'>): RedisOptions => ({
  ...redisOptionsFromUrl(config.REDIS_URL),
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
});

/** BullMQ on Redis, every key under QUEUE_PREFIX. */
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [EnvironmentVariables],
      useFactory: (config: EnvironmentVariables) => ({
        connection: workerConnection(config),
        prefix: config.QUEUE_PREFIX,
        defaultJobOptions: { removeOnComplete: { age: 3600, count: 10_000 }, removeOnFail: { age: 7 * 24 * 3600 } },
      }),
    }),
  ],
})
export class QueueModule {}
