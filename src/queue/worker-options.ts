import type { WorkerOptions } from 'bullmq';
import { env } from '../config/env';
import { workerConnection } from './queue.module';

/**
 * Worker options for @Processor. Getters, because @nestjs/bullmq spreads these when it creates
 * the Worker at bootstrap, while decorators run at import time, before the environment is read.
 */
export function workerOptions(concurrency: () => number): Partial<WorkerOptions> {
  return {
    get connection() {
      return workerConnection(env());
    },
    get concurrency() {
      return concurrency();
    },
    get lockDuration() {
      return env().QUEUE_LOCK_MS;
    },
    get stalledInterval() {
      return Math.max(1000, Math.floor(env().QUEUE_LOCK_MS / 2));
    },
  };
}
