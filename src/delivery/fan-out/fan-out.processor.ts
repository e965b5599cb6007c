import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { DUE_SENDS_JOB, DueSendsJob, FANOUT_QUEUE, FanoutJob } from '../../common/queues';
import { FanoutJobs } from '../../queue/jobs';
import { DueSendsDrain } from './due-sends-drain';
import { MetricsService } from '../../metrics/metrics.service';
import { FanOutService } from './fan-out.service';
import { FanoutSharesService } from '../fair-shares/fanout-shares.service';
import { workerOptions } from '../../queue/worker-options';

/** Few fan-outs at once: each one is a sequence of database transactions. */
@Processor(FANOUT_QUEUE, workerOptions(FANOUT_QUEUE, () => 2))
export class FanOutProcessor extends WorkerHost {
  private readonly logger = new Logger(FanOutProcessor.name);

  constructor(
    private readonly fanOut: FanOutService,
    private readonly metrics: MetricsService,
    private readonly dueSends: DueSendsDrain,
    private readonly fanoutJobs: FanoutJobs,
    private readonly fanoutShares: FanoutSharesService,
  ) {
    super();
  }

  async process(job: Job<FanoutJob> | Job<DueSendsJob>, token?: string) {
    // Sends due at an instant, claimed in groups (docs/api.md#due-sends); a full first group calls in one helper job.
    if (job.name === DUE_SENDS_JOB) {
      const { dueAt } = job.data as DueSendsJob;
      return this.dueSends.drain(job.id?.endsWith('-helper') ? undefined : () => this.fanoutJobs.addDue(dueAt, 'helper'));
    }
    return this.fanOutOne(job as Job<FanoutJob>, token);
  }

  private async fanOutOne(job: Job<FanoutJob>, token?: string) {
    const started = process.hrtime.bigint();
    // Every planned hold started the job once more; a start beyond them is a re-run after a failure or a stall.
    const pauses = job.data.pauses ?? 0;
    const resumed = job.stalledCounter > 0 || job.attemptsStarted > 1 + pauses;
    // After a planned hold, or for a small send the API fanned out (and found no batch), nothing is owed.
    const result = await this.fanOut.fanOut(job.data.notificationId, resumed, (pauses > 0 || job.data.small === true) && !resumed);
    const holdUntil = result.heldUntil ?? result.pausedUntil;
    if (holdUntil) {
      // Early for its send_at (clocks, or the sweeper's re-queue; docs/api.md#scheduling), or a throttled
      // send a lead ahead of its turns (docs/api.md#pacing): the same job waits in Redis until then.
      const until = Math.max(Date.now(), holdUntil.getTime()) + 1;
      await job.updateData({ notificationId: job.data.notificationId, pauses: pauses + 1, ...(result.pausedUntil ? { pausedUntil: until } : {}) });
      await job.moveToDelayed(until, token);
      throw new DelayedError();
    }
    // Its place in its app's window goes to the app's next held fan-out, behind the other apps' (docs/api.md#fair-sharing).
    if (job.data.small !== true) await this.fanoutShares.finished(job.data.notificationId);
    // A small send's fan-out was timed by the api that ran it.
    if (result.ran && job.data.small !== true) {
      this.metrics.fanoutDuration.observe(Number(process.hrtime.bigint() - started) / 1e9);
      this.logger.debug(`Fanned out ${job.data.notificationId}: ${result.installations} installations, ${result.batches} batches`);
    }
    return result;
  }
}
