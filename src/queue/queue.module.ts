import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { createIORedisClient, RedisConnection } from 'bullmq';
import { EnvironmentVariables } from '../config/env';
import { redisConnectionOptions, RedisConnectionOptions } from '../config/redis-options';
import { createRedisClient } from './redis-client';
import { ObservedQueue, ObservedWorker } from './redis-status';

// Every queue and worker @nestjs/bullmq creates reports its connection errors to redisStatus.
// Set when this file is first imported, which is before any module calls registerQueue.
BullModule.queueClass = ObservedQueue;
BullModule.workerClass = ObservedWorker;
// BullMQ builds its connections (a worker's blocking one too) from the options below through this
// factory, so they are Cluster clients when REDIS_CLUSTER_NODES is set; BullMQ still owns and
// closes them, as it does the clients it would have made itself.
RedisConnection.clientFactory = (options) => createIORedisClient(createRedisClient(options));

type RedisSettings = Pick<EnvironmentVariables, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>;

/** Workers block on Redis and must retry forever (BullMQ requires maxRetriesPerRequest: null). */
export const workerConnection = (config: RedisSettings): RedisConnectionOptions => ({
  ...redisConnectionOptions(config),
  maxRetriesPerRequest: null,
});

/** Producers in the API answer in bounded time: no offline buffering, one retry. */
export const producerConnection = (config: RedisSettings): RedisConnectionOptions => ({
  ...redisConnectionOptions(config),
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
