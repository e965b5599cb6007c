import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { FANOUT_QUEUE } from '../common/queues';

const PING_TIMEOUT_MS = 1_000;

/** Pings Redis through the API's own queue connection. */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @InjectQueue(FANOUT_QUEUE) private readonly queue: Queue,
  ) {}

  async check(key: string) {
    const indicator = this.indicators.check(key);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        // Inside the race: until its first connection, BullMQ's client promise waits for Redis.
        // BullMQ's Redis backend runs on ioredis.
        (this.queue.getBackend().client as unknown as Promise<Redis>).then((client) => client.ping()),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
        }),
      ]);
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    } finally {
      clearTimeout(timer);
    }
  }
}
