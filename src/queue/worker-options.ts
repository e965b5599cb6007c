import type { WorkerOptions } from 'bullmq';
import { env } from '../config/env';
import { workerConnection } from './queue.module';
import type { QUEUES } from '../common/queues';

type Queue = (typeof QUEUES)[number];

export function runsQueue(workerQueues: string | undefined, queue: Queue): boolean {
  return workerQueues === undefined || workerQueues.split(',').some((name) => name.trim() === queue);
}

/** Getters: @nestjs/bullmq reads them at bootstrap, after decorators ran and the environment was read. */
export function workerOptions(queue: Queue, concurrency: () => number): Partial<WorkerOptions> {
  return {
    // A queue left out of WORKER_QUEUES gets a Worker that never runs: no job, no stalled-job check.
    get autorun() {
      return runsQueue(env().WORKER_QUEUES, queue);
    },
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
