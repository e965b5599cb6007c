import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { DELIVER_QUEUE, FANOUT_QUEUE, LIVE_ACTIVITY_QUEUE, SMALL_SEND_QUEUE, WEBHOOK_QUEUE } from '../common/queues';
import { EnvironmentVariables } from '../config/env';
import { producerConnection } from './queue.module';
import { ObservedQueue } from './redis-status';

export const INSPECTED_QUEUES = [FANOUT_QUEUE, DELIVER_QUEUE, SMALL_SEND_QUEUE, WEBHOOK_QUEUE] as const;
export const SAMPLED_QUEUES = [...INSPECTED_QUEUES, LIVE_ACTIVITY_QUEUE] as const;

/** Read-side queues, not registered with BullModule: a worker would inherit their fail-fast connection. */
@Injectable()
export class QueueInspector implements OnModuleDestroy {
  private handles?: Queue[];

  constructor(private readonly config: EnvironmentVariables) {}

  queues(): Queue[] {
    return this.sampled().slice(0, INSPECTED_QUEUES.length);
  }

  sampled(): Queue[] {
    this.handles ??= SAMPLED_QUEUES.map((name) => new ObservedQueue(name, { connection: producerConnection(this.config), prefix: this.config.QUEUE_PREFIX }));
    return this.handles;
  }

  async onModuleDestroy(): Promise<void> {
    const handles = this.handles ?? [];
    this.handles = undefined;
    await Promise.allSettled(handles.map((queue) => queue.close()));
  }
}
