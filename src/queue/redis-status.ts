import { Logger } from '@nestjs/common';
import { Processor, Queue, QueueOptions, Worker, WorkerOptions } from 'bullmq';
import { env } from '../config/env';
import { queueBackendFactory } from './queue-backend';

/** The queue store's state for the whole process: every client's errors become one line when lost, one per interval, one when back. */
export class RedisStatus {
  private loggerOf?: Logger;
  private downSince?: number;
  private lastLine = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly intervalMs: () => number = () => env().REDIS_LOG_INTERVAL_MS,
    private readonly store: () => string = () => (env().QUEUE_BACKEND === 'postgres' ? 'PostgreSQL (queues)' : 'Redis'),
  ) {}

  /** Context `Redis`, or `Queues` on PostgreSQL; made on first use, once the configuration is read. */
  private get logger(): Logger {
    return (this.loggerOf ??= new Logger(this.store() === 'Redis' ? 'Redis' : 'Queues'));
  }

  get reachable(): boolean {
    return this.downSince === undefined;
  }

  down(error: Error & { code?: string }): void {
    const now = this.now();
    const reason = error.code ?? error.message;
    if (this.downSince === undefined) {
      this.downSince = now;
      this.lastLine = now;
      this.logger.warn(`${this.store()} unreachable (${reason}): retrying until it answers; sends are stored and queued once it is back`);
    } else if (now - this.lastLine >= this.intervalMs()) {
      this.lastLine = now;
      this.logger.warn(`${this.store()} still unreachable after ${Math.round((now - this.downSince) / 1000)} s (${reason}): retrying`);
    }
  }

  up(): void {
    if (this.downSince === undefined) return;
    this.logger.log(`${this.store()} reachable again after ${Math.round((this.now() - this.downSince) / 1000)} s`);
    this.downSince = undefined;
  }
}

export const redisStatus = new RedisStatus();

/** Listens from the constructor on: BullMQ prints an unheard error event with console.error and its stack. Runs on QUEUE_BACKEND. */
export class ObservedQueue extends Queue {
  constructor(name: string, opts: QueueOptions) {
    // Undefined is BullMQ's default backend, Redis; the cast picks the overload that takes a factory.
    super(name, opts, queueBackendFactory(env()) as never);
    this.on('error', (error) => redisStatus.down(error));
    this.getBackend().on('ready', () => redisStatus.up());
  }
}

export class ObservedWorker extends Worker {
  constructor(name: string, processor: string | URL | null | Processor | undefined, opts: WorkerOptions) {
    super(name, processor, opts, queueBackendFactory(env()) as never);
    this.on('error', (error) => redisStatus.down(error));
    this.getBackend().on('ready', () => redisStatus.up());
  }
}
