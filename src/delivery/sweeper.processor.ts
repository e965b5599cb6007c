import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { OnApplicationBootstrap } from '@nestjs/common';
import { Queue } from 'bullmq';
import { MAINTENANCE_QUEUE } from '../common/queues';
import { env } from '../config/env';
import { SweeperService } from './sweeper.service';
import { workerOptions } from './worker-options';

/** The sweeper runs as a BullMQ job scheduler, so several workers never sweep at the same time. */
@Processor(MAINTENANCE_QUEUE, workerOptions(() => 1))
export class SweeperProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly sweeper: SweeperService,
    @InjectQueue(MAINTENANCE_QUEUE) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.upsertJobScheduler('sweeper', { every: env().SWEEP_INTERVAL_MS }, { name: 'sweep' });
  }

  async process() {
    return this.sweeper.sweep();
  }
}
