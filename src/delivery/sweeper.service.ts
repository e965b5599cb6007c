import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { DELIVER_QUEUE, DeliverJob, deliverJobId, FANOUT_QUEUE, FanoutJob, fanoutJobId } from '../common/queues';
import { env } from '../config/env';

/** A notification this old with no fan-out progress is looked after (its enqueue may have failed). */
const UNQUEUED_AFTER_MS = 5_000;
const SWEEP_LIMIT = 1000;
/**
 * Notifications whose rows may be stuck: unfinished, and begun more than $1 seconds
 * (DELIVERY_STUCK_MS) ago; a younger one cannot have a row that old.
 */
const OVERDUE_NOTIFICATION = `n.completed_at IS NULL AND n.processing_started_at < now() - make_interval(secs => $1)`;

export interface SweepReport {
  fanoutsQueued: number;
  stuckReset: number;
  batchesQueued: number;
  completed: number;
  idempotencyKeysPurged: number;
}

/**
 * Redis holds only queue state; PostgreSQL is the truth. The sweeper queues what PostgreSQL says
 * is owed and no job holds: sends accepted while Redis was away, fan-outs whose job failed for
 * good, deliveries left "sending" by a worker that died, pending batches whose job was lost.
 */
@Injectable()
export class SweeperService {
  private readonly logger = new Logger(SweeperService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(FANOUT_QUEUE) private readonly fanoutQueue: Queue<FanoutJob>,
    @InjectQueue(DELIVER_QUEUE) private readonly deliverQueue: Queue<DeliverJob>,
  ) {}

  async sweep(): Promise<SweepReport> {
    const report: SweepReport = {
      fanoutsQueued: await this.requeueFanouts(),
      stuckReset: 0,
      batchesQueued: 0,
      completed: 0,
      idempotencyKeysPurged: 0,
    };
    const batches = await this.resetStuckDeliveries(report);
    report.batchesQueued = await this.requeueBatches(batches);
    report.completed = await this.completeFinished();
    report.idempotencyKeysPurged = (await this.db.query(`DELETE FROM idempotency_keys WHERE expires_at <= now()`))[1];
    if (report.fanoutsQueued + report.stuckReset + report.batchesQueued + report.completed > 0) {
      this.logger.log(`Sweep: ${JSON.stringify(report)}`);
    }
    return report;
  }

  private async requeueFanouts(): Promise<number> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM notifications
       WHERE completed_at IS NULL AND fanned_out_at IS NULL AND created_at < now() - make_interval(secs => $1 / 1000.0)
       ORDER BY created_at LIMIT $2`,
      [UNQUEUED_AFTER_MS, SWEEP_LIMIT],
    );
    let queued = 0;
    for (const { id } of rows) {
      const job = await this.fanoutQueue.getJob(fanoutJobId(id));
      const state = job ? await job.getState() : 'missing';
      if (state === 'failed') {
        await job!.retry();
      } else if (state === 'missing' || state === 'unknown' || state === 'completed') {
        // A completed job id would swallow the add, so it goes first.
        if (job) await job.remove().catch(() => undefined);
        await this.fanoutQueue.add('fanout', { notificationId: id }, { jobId: fanoutJobId(id) });
      } else {
        continue;
      }
      queued++;
    }
    return queued;
  }

  /**
   * Rows "sending" for longer than DELIVERY_STUCK_MS belonged to a dead worker: pending again.
   * Both look-ups go through the unfinished notifications (a partial index) and each one's own rows
   * (the primary key): deliveries keep no index on their status, so that their updates stay HOT.
   */
  private async resetStuckDeliveries(report: SweepReport): Promise<{ notification_id: string; batch: number }[]> {
    const stuckSeconds = env().DELIVERY_STUCK_MS / 1000;
    const [reset]: [{ notification_id: string; batch: number }[], number] = await this.db.query(
      `UPDATE deliveries d SET status = 'pending', next_attempt_at = NULL, updated_at = now()
       FROM notifications n
       WHERE ${OVERDUE_NOTIFICATION}
         AND d.notification_id = n.id AND d.status = 'sending' AND d.updated_at < now() - make_interval(secs => $1)
       RETURNING d.notification_id, d.batch`,
      [stuckSeconds],
    );
    report.stuckReset = reset.length;
    // Pending batches that are overdue and may have lost their job (Redis flushed, job removed).
    const orphaned: { notification_id: string; batch: number }[] = await this.db.query(
      `SELECT DISTINCT d.notification_id, d.batch FROM notifications n JOIN deliveries d ON d.notification_id = n.id
       WHERE ${OVERDUE_NOTIFICATION}
         AND d.status = 'pending' AND d.updated_at < now() - make_interval(secs => $1)
         AND (d.next_attempt_at IS NULL OR d.next_attempt_at < now() - make_interval(secs => $1))
       LIMIT $2`,
      [stuckSeconds, SWEEP_LIMIT],
    );
    const unique = new Map<string, { notification_id: string; batch: number }>();
    for (const row of [...reset, ...orphaned]) unique.set(`${row.notification_id}/${row.batch}`, row);
    return [...unique.values()];
  }

  /** A fresh job id per sweep, since the batch's own job may still sit completed in Redis. */
  private async requeueBatches(batches: { notification_id: string; batch: number }[]): Promise<number> {
    if (batches.length === 0) return 0;
    const sweepId = `s${Date.now()}`;
    await this.deliverQueue.addBulk(
      batches.map(({ notification_id, batch }) => ({
        name: 'deliver',
        data: { notificationId: notification_id, batch },
        opts: { jobId: deliverJobId(notification_id, batch, sweepId) },
      })),
    );
    return batches.length;
  }

  private async completeFinished(): Promise<number> {
    const [, count]: [unknown, number] = await this.db.query(
      `UPDATE notifications SET completed_at = now()
       WHERE completed_at IS NULL AND fanned_out_at IS NOT NULL
         AND stat_accepted + stat_failed + stat_skipped >= stat_installations`,
    );
    return count;
  }
}
