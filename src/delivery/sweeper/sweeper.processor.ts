import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { AB_DECISION_JOB, MAINTENANCE_QUEUE } from '../../common/queues';
import { AbTestsService } from '../ab-tests/ab-tests.service';
import { EnvironmentVariables } from '../../config/env';
import { InstallationDaysService } from '../installation-days/installation-days.service';
import { RetentionService } from '../retention/retention.service';
import { SweeperService } from './sweeper.service';
import { workerOptions } from '../../queue/worker-options';

const RETENTION_EVERY_MS = 60 * 60 * 1000;
const RETENTION_JOB = 'retention';
/** Today's installation counts, written again each hour (delivery/installation-days/). */
const INSTALLATION_DAYS_JOB = 'installation-days';
const INSTALLATION_DAYS_EVERY_MS = 60 * 60 * 1000;

/** BullMQ job schedulers on the maintenance queue, one job at a time across workers. */
@Processor(MAINTENANCE_QUEUE, workerOptions(MAINTENANCE_QUEUE, () => 1))
export class SweeperProcessor extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SweeperProcessor.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly sweeper: SweeperService,
    private readonly retention: RetentionService,
    private readonly installationDays: InstallationDaysService,
    private readonly abTests: AbTestsService,
    @InjectQueue(MAINTENANCE_QUEUE) private readonly queue: Queue,
    private readonly config: EnvironmentVariables,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    // Not awaited: start-up must not wait for an unreachable Redis.
    this.schedule().catch((error: Error) => this.logger.debug(`Sweeper schedule not set: ${error.message}`));
    // Re-asserted each interval, so the schedule returns by itself should Redis lose its data.
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
    if (job.name === INSTALLATION_DAYS_JOB) return this.installationDays.snapshot();
    if (job.name === AB_DECISION_JOB) return this.abTests.decideDue();
    // Each sweep also decides A/B tests whose job was lost (docs/api.md#a-b-test-with-a-winner).
    const report = await this.sweeper.sweep();
    await this.abTests.decideDue();
    return report;
  }

  private async schedule(): Promise<void> {
    await this.queue.upsertJobScheduler('sweeper', { every: this.config.SWEEP_INTERVAL_MS }, { name: 'sweep' });
    await this.queue.upsertJobScheduler(RETENTION_JOB, { every: RETENTION_EVERY_MS }, { name: RETENTION_JOB });
    await this.queue.upsertJobScheduler(INSTALLATION_DAYS_JOB, { every: INSTALLATION_DAYS_EVERY_MS }, { name: INSTALLATION_DAYS_JOB });
  }
}
