import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { MAINTENANCE_QUEUE } from '../../common/queues';
import { EnvironmentVariables } from '../../config/env';
import { RetentionService } from '../retention/retention.service';
import { SweeperService } from './sweeper.service';
import { workerOptions } from '../../queue/worker-options';

/** Retention (partitions ahead, old weeks dropped) runs hourly: weeks are its unit, and each run is short. */
const RETENTION_EVERY_MS = 60 * 60 * 1000;
const RETENTION_JOB = 'retention';

/**
 * The sweeper and retention run as BullMQ job schedulers on the maintenance queue, one job at a
 * time across all workers, so two workers never sweep (or drop partitions) at once.
 */
@Processor(MAINTENANCE_QUEUE, workerOptions(MAINTENANCE_QUEUE, () => 1))
export class SweeperProcessor extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SweeperProcessor.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly sweeper: SweeperService,
    private readonly retention: RetentionService,
    @InjectQueue(MAINTENANCE_QUEUE) private readonly queue: Queue,
    private readonly config: EnvironmentVariables,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    // Not awaited: with Redis unreachable this waits for it, and start-up (the API of an `all`
    // process included) must not.
    this.schedule().catch((error: Error) => this.logger.debug(`Sweeper schedule not set: ${error.message}`));
    // The schedule lives in Redis. Should Redis lose its data (a restart without persistence, a
    // failover, a FLUSHALL), the sweeper that recovers everything else must come back by itself,
    // so every worker re-asserts it each interval; upserting an existing schedule changes nothing.
    this.timer = setInterval(() => {
      this.schedule().catch((error: Error) => this.logger.debug(`Sweeper schedule not renewed: ${error.message}`));
    }, this.config.SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async process(job: Job) {
    if (job.name === RETENTION_JOB) return this.retention.run();
    return this.sweeper.sweep();
  }

  private async schedule(): Promise<void> {
    await this.queue.upsertJobScheduler('sweeper', { every: this.config.SWEEP_INTERVAL_MS }, { name: 'sweep' });
    await this.queue.upsertJobScheduler(RETENTION_JOB, { every: RETENTION_EVERY_MS }, { name: RETENTION_JOB });
  }
}
