import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { FANOUT_QUEUE, FanoutJob } from '../../common/queues';
import { MetricsService } from '../../metrics/metrics.service';
import { FanOutService } from './fan-out.service';
import { workerOptions } from '../../queue/worker-options';

/** Few fan-outs at once: each one is a sequence of database transactions. */
@Processor(FANOUT_QUEUE, workerOptions(() => 2))
export class FanOutProcessor extends WorkerHost {
  private readonly logger = new Logger(FanOutProcessor.name);

  constructor(
    private readonly fanOut: FanOutService,
    private readonly metrics: MetricsService,
  ) {
    super();
  }

  async process(job: Job<FanoutJob>, token?: string) {
    const started = process.hrtime.bigint();
    const result = await this.fanOut.fanOut(job.data.notificationId, job.attemptsStarted > 1 || job.stalledCounter > 0);
    if (result.heldUntil) {
      // Early (clocks, or the sweeper's re-queue): the same job waits until send_at (docs/api.md#scheduling).
      await job.moveToDelayed(Math.max(Date.now(), result.heldUntil.getTime()) + 1, token);
      throw new DelayedError();
    }
    if (result.ran) {
      this.metrics.fanoutDuration.observe(Number(process.hrtime.bigint() - started) / 1e9);
      this.logger.debug(`Fanned out ${job.data.notificationId}: ${result.installations} installations, ${result.batches} batches`);
    }
    return result;
  }
}
