import { Injectable, Logger } from '@nestjs/common';
import { EnvironmentVariables } from '../../config/env';
import { DeliverJobs, FanoutJobs, LiveActivityBroadcastJobs, LiveActivityJobs } from '../../queue/jobs';
import { CompletionReportService } from '../completion-report.service';
import { DeliveriesRepository } from '../deliver/deliveries.repository';
import { LiveActivityBroadcastsRepository } from '../live-activity/live-activity-broadcasts.repository';
import { LiveActivityUpdatesRepository } from '../live-activity/live-activity-updates.repository';
import { FairSharesService } from '../fair-shares/fair-shares.service';
import { FanoutSharesService } from '../fair-shares/fanout-shares.service';
import { BatchRef, SweeperRepository } from './sweeper.repository';

/** Its enqueue may have failed. */
const UNQUEUED_AFTER_MS = 5_000;
const SWEEP_LIMIT = 1000;
const LIVE_ACTIVITY_UNQUEUED_AFTER_MS = 30_000;

export interface SweepReport {
  fanoutsQueued: number;
  stuckReset: number;
  batchesQueued: number;
  completed: number;
  idempotencyKeysPurged: number;
  liveActivityUpdatesQueued: number;
  liveActivityBroadcastsQueued: number;
}

/** Redis holds only queue state: the sweeper queues what PostgreSQL says is owed and no job holds. */
@Injectable()
export class SweeperService {
  private readonly logger = new Logger(SweeperService.name);

  constructor(
    private readonly sweeps: SweeperRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly fanoutJobs: FanoutJobs,
    private readonly deliverJobs: DeliverJobs,
    private readonly config: EnvironmentVariables,
    private readonly completions: CompletionReportService,
    private readonly liveActivityUpdates: LiveActivityUpdatesRepository,
    private readonly liveActivityJobs: LiveActivityJobs,
    private readonly liveActivityBroadcasts: LiveActivityBroadcastsRepository,
    private readonly liveActivityBroadcastJobs: LiveActivityBroadcastJobs,
    private readonly fairShares: FairSharesService,
    private readonly fanoutShares: FanoutSharesService,
  ) {}

  async sweep(): Promise<SweepReport> {
    const report: SweepReport = {
      fanoutsQueued: await this.requeueFanouts(),
      stuckReset: 0,
      batchesQueued: 0,
      completed: 0,
      idempotencyKeysPurged: 0,
      liveActivityUpdatesQueued: 0,
      liveActivityBroadcastsQueued: 0,
    };
    const batches = await this.resetStuckDeliveries(report);
    report.batchesQueued = await this.requeueBatches(batches);
    // Places in apps' windows whose job died after its batch was sent go to the next held batches.
    report.batchesQueued += await this.fairShares.freeAbandoned(this.config.DELIVERY_STUCK_MS / 1000);
    // Places whose job never came (a worker died between the window's commit and the add) get it.
    report.batchesQueued += await this.fairShares.requeueLost(UNQUEUED_AFTER_MS, SWEEP_LIMIT);
    const completed = await this.deliveries.completeFinished();
    report.completed = completed.length;
    await this.completions.completed(completed);
    report.idempotencyKeysPurged = await this.sweeps.purgeIdempotencyKeys();
    report.liveActivityUpdatesQueued = await this.requeueLiveActivityUpdates();
    report.liveActivityBroadcastsQueued = await this.requeueLiveActivityBroadcasts();
    const moved = report.fanoutsQueued + report.stuckReset + report.batchesQueued + report.completed;
    if (moved + report.liveActivityUpdatesQueued + report.liveActivityBroadcastsQueued > 0) {
      this.logger.log(`Sweep: ${JSON.stringify(report)}`);
    }
    return report;
  }

  private async requeueLiveActivityUpdates(): Promise<number> {
    let queued = 0;
    for (const { id, attempts } of await this.liveActivityUpdates.owed(LIVE_ACTIVITY_UNQUEUED_AFTER_MS, SWEEP_LIMIT, 'pending')) {
      if (await this.liveActivityJobs.requeue(id, attempts + 1)) queued++;
    }
    return queued;
  }

  private async requeueLiveActivityBroadcasts(): Promise<number> {
    let queued = 0;
    for (const { id, attempts } of await this.liveActivityBroadcasts.owed(LIVE_ACTIVITY_UNQUEUED_AFTER_MS, SWEEP_LIMIT, 'pending')) {
      if (await this.liveActivityBroadcastJobs.requeue(id, attempts + 1)) queued++;
    }
    return queued;
  }

  private async requeueFanouts(): Promise<number> {
    // Places in apps' fan-out windows whose fan-out ended without giving them back go to the next held ones.
    let queued = await this.fanoutShares.freeEnded();
    const unfanned = await this.sweeps.unfannedNotifications(UNQUEUED_AFTER_MS, SWEEP_LIMIT);
    // Scheduled sends no claim took (their instant's job lost, or still draining): one more due-sends job claims them all.
    const claimable = unfanned.filter((row) => row.claimable).length;
    if (claimable > 0) {
      const now = Date.now();
      await this.fanoutJobs.addDue(now, `s${now}`);
      queued += claimable;
    }
    for (const { id } of unfanned.filter((row) => !row.claimable)) {
      const job = await this.fanoutJobs.find(id);
      const state = job ? await job.getState() : 'missing';
      if (state === 'failed') {
        await job!.retry();
      } else if (state === 'delayed') {
        // A throttled send's fan-out paused until its next turns (docs/api.md#pacing) is not late.
        if ((job!.data.pausedUntil ?? 0) > Date.now()) continue;
        // Held for a send_at that has passed, or cancelled since: due now.
        await job!.promote();
      } else if (state === 'missing' || state === 'unknown' || state === 'completed') {
        // A completed job id would swallow the add, so it goes first.
        if (job) await job.remove().catch(() => undefined);
        await this.fanoutJobs.add(id);
      } else {
        continue;
      }
      queued++;
    }
    return queued;
  }

  private async resetStuckDeliveries(report: SweepReport): Promise<BatchRef[]> {
    const stuckSeconds = this.config.DELIVERY_STUCK_MS / 1000;
    const reset = await this.sweeps.resetStuck(stuckSeconds);
    report.stuckReset = reset.length;
    const orphaned = await this.sweeps.overdueBatches(stuckSeconds, SWEEP_LIMIT);
    const unique = new Map<string, BatchRef>();
    for (const row of [...reset, ...orphaned]) unique.set(`${row.notification_id}/${row.batch}`, row);
    return [...unique.values()];
  }

  /** A fresh job id per sweep: the batch's own may still sit completed in Redis. */
  private async requeueBatches(batches: BatchRef[]): Promise<number> {
    if (batches.length === 0) return 0;
    await this.deliverJobs.addBatches(
      batches.map(({ notification_id, batch }) => ({ notificationId: notification_id, batch })),
      `s${Date.now()}`,
    );
    return batches.length;
  }
}
