import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { DELIVER_QUEUE, FANOUT_QUEUE, SMALL_SEND_QUEUE, WEBHOOK_QUEUE } from '../common/queues';
import { EnvironmentVariables } from '../config/env';
import { producerConnection } from './queue.module';
import { ObservedQueue } from './redis-status';

export const INSPECTED_QUEUES = [FANOUT_QUEUE, DELIVER_QUEUE, SMALL_SEND_QUEUE, WEBHOOK_QUEUE] as const;

/**
 * Read-side handles on every queue, for the metrics sampler and the queue dashboard. They are
 * plain BullMQ Queues, deliberately not registered with BullModule: @nestjs/bullmq takes a
 * processor's connection options from whichever queue provider of that name it finds first, and
 * these use the API's fail-fast producer connection, which a worker must not inherit. They are
 * created on first use, so a process that is never scraped and has no dashboard opens no
 * connection for them.
 */
@Injectable()
export class QueueInspector implements OnModuleDestroy {
  private handles?: Queue[];

  constructor(private readonly config: EnvironmentVariables) {}

  queues(): Queue[] {
    this.handles ??= INSPECTED_QUEUES.map((name) => new ObservedQueue(name, { connection: producerConnection(this.config), prefix: this.config.QUEUE_PREFIX }));
    return this.handles;
  }

  async onModuleDestroy(): Promise<void> {
    const handles = this.handles ?? [];
    this.handles = undefined;
    await Promise.allSettled(handles.map((queue) => queue.close()));
  }
}
