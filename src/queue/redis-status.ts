import { Logger } from '@nestjs/common';
import { Processor, Queue, QueueOptions, Worker, WorkerOptions } from 'bullmq';
import { env } from '../config/env';

/** Redis's state for the whole process: every client's errors become one line when lost, one per interval, one when back. */
export class RedisStatus {
  private readonly logger = new Logger('Redis');
  private downSince?: number;
  private lastLine = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly intervalMs: () => number = () => env().REDIS_LOG_INTERVAL_MS,
  ) {}

  get reachable(): boolean {
    return this.downSince === undefined;
  }

  down(error: Error & { code?: string }): void {
    const now = this.now();
    const reason = error.code ?? error.message;
    if (this.downSince === undefined) {
      this.downSince = now;
      this.lastLine = now;
      this.logger.warn(`Redis unreachable (${reason}): retrying until it answers; sends are stored and queued once it is back`);
    } else if (now - this.lastLine >= this.intervalMs()) {
      this.lastLine = now;
      this.logger.warn(`Redis still unreachable after ${Math.round((now - this.downSince) / 1000)} s (${reason}): retrying`);
    }
  }

  up(): void {
    if (this.downSince === undefined) return;
    this.logger.log(`Redis reachable again after ${Math.round((this.now() - this.downSince) / 1000)} s`);
    this.downSince = undefined;
  }
}

export const redisStatus = new RedisStatus();

/** Listens from the constructor on: BullMQ prints an unheard error event with console.error and its stack. */
export class ObservedQueue extends Queue {
  constructor(name: string, opts: QueueOptions) {
    super(name, opts);
    this.on('error', (error) => redisStatus.down(error));
    this.getBackend().on('ready', () => redisStatus.up());
  }
}

export class ObservedWorker extends Worker {
  constructor(name: string, processor: string | URL | null | Processor | undefined, opts: WorkerOptions) {
    super(name, processor, opts);
    this.on('error', (error) => redisStatus.down(error));
    this.getBackend().on('ready', () => redisStatus.up());
  }
}
