import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { createIORedisClient, RedisConnection } from 'bullmq';
import { EnvironmentVariables } from '../config/env';
import { redisConnectionOptions, RedisConnectionOptions } from '../config/redis-options';
import { createRedisClient } from './redis-client';
import { ObservedQueue, ObservedWorker } from './redis-status';

// Every queue @nestjs/bullmq creates reports its errors to redisStatus; set before any registerQueue.
BullModule.queueClass = ObservedQueue;
BullModule.workerClass = ObservedWorker;
// BullMQ's connections go through this factory, so they are Cluster clients when REDIS_CLUSTER_NODES is set.
RedisConnection.clientFactory = (options) => createIORedisClient(createRedisClient(options));

type RedisSettings = Pick<EnvironmentVariables, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>;

/** Workers block and retry forever (BullMQ requires maxRetriesPerRequest: null). */
export const workerConnection = (config: RedisSettings): RedisConnectionOptions => ({
  ...redisConnectionOptions(config),
  maxRetriesPerRequest: null,
});

export const producerConnection = (config: RedisSettings): RedisConnectionOptions => ({
  ...redisConnectionOptions(config),
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
});

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
