import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { createIORedisClient, RedisConnection } from 'bullmq';
import { EnvironmentVariables } from '../config/env';
import { queueConnection } from './queue-backend';
import { createRedisClient } from './redis-client';
import { ObservedQueue, ObservedWorker } from './redis-status';

// Every queue @nestjs/bullmq creates reports its errors to queueStatus and runs on QUEUE_BACKEND; set before any registerQueue.
BullModule.queueClass = ObservedQueue;
BullModule.workerClass = ObservedWorker;
// BullMQ's Redis connections go through this factory, so they are Cluster clients when REDIS_CLUSTER_NODES is set.
RedisConnection.clientFactory = (options) => createIORedisClient(createRedisClient(options));

type ConnectionSettings = Parameters<typeof queueConnection>[0];

/** A worker's connection on the configured backend (queue-backend.ts). */
export const workerConnection = (config: ConnectionSettings) => queueConnection(config, 'worker');

/** A producer's connection: on Redis it fails fast rather than queue commands while disconnected. */
export const producerConnection = (config: ConnectionSettings) => queueConnection(config, 'producer');

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
