import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { PostgresQueueBackend, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { FANOUT_QUEUE } from '../common/queues';
import { EnvironmentVariables } from '../config/env';
import { byBackend } from '../queue/queue-backend';

const PING_TIMEOUT_MS = 1_000;

/**
 * The queue store answers, through the API's own queue connection: check `redis` on Redis,
 * `queues` on PostgreSQL, each naming its `backend` (docs/api.md#processes).
 */
@Injectable()
export class QueueHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly config: EnvironmentVariables,
    @InjectQueue(FANOUT_QUEUE) private readonly queue: Queue,
  ) {}

  get key(): string {
    return byBackend(this.config, { redis: () => 'redis', postgres: () => 'queues' });
  }

  async check() {
    const indicator = this.indicators.check(this.key);
    const backend = { backend: this.config.QUEUE_BACKEND };
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        // Inside the race: until its first connection, BullMQ's Redis client promise waits for Redis.
        byBackend<Promise<unknown>>(this.config, {
          redis: () => (this.queue.getBackend().client as unknown as Promise<Redis>).then((client) => client.ping()),
          postgres: () => (this.queue.getBackend() as unknown as PostgresQueueBackend).connection.pool.query('SELECT 1'),
        }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
        }),
      ]);
      return indicator.up(backend);
    } catch (error) {
      return indicator.down({ ...backend, message: (error as Error).message });
    } finally {
      clearTimeout(timer);
    }
  }
}
