import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { DELIVER_QUEUE, DeliverJob, deliverJobId } from '../common/queues';
import { env } from '../config/env';
import { CredentialsService } from '../credentials/credentials.service';
import { NotificationOptions } from '../notifications/notification.entity';
import { PUSH_PROVIDERS, PushProvider } from './providers/push-provider';

/** Target users handled per transaction: bounds memory and lock time, whatever the send's size. */
const USERS_PER_CHUNK = 5000;

/**
 * One chunk of users: every non-deleted installation of theirs becomes a delivery row, pending
 * (numbered into delivery batches) or skipped with its reason (docs/api.md 5.2), in one statement.
 */
const FANOUT_CHUNK_SQL = `
  WITH targets AS (
    SELECT i.id, i.user_id, i.platform,
      CASE
        WHEN NOT (i.platform = ANY($5::text[])) THEN 'PlatformExcluded'
        WHEN NOT (i.platform = ANY($6::text[])) THEN 'NoCredentials'
        WHEN i.permission = 'denied' THEN 'PermissionDenied'
        WHEN i.invalidated_at IS NOT NULL THEN 'Invalidated'
        WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN 'NoToken'
      END AS skip_reason
    FROM installations i
    WHERE i.app_id = $1 AND i.user_id = ANY($2::text[]) AND i.deleted_at IS NULL
  ),
  numbered AS (
    SELECT t.*, CASE WHEN t.skip_reason IS NULL
      THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL ORDER BY t.platform, t.id) - 1) / $4 END AS batch_offset
    FROM targets t
  ),
  inserted AS (
    INSERT INTO deliveries (notification_id, installation_id, platform, batch, status, reason)
    SELECT $3, n.id, n.platform, COALESCE($7 + n.batch_offset, -1),
      CASE WHEN n.skip_reason IS NULL THEN 'pending' ELSE 'skipped' END, n.skip_reason
    FROM numbered n
    ON CONFLICT (notification_id, installation_id) DO NOTHING
    RETURNING status, batch
  )
  SELECT
    (SELECT count(DISTINCT user_id) FROM targets)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = 'skipped')::int AS skipped,
    (SELECT COALESCE(max(batch_offset) + 1, 0) FROM numbered)::int AS batches_used,
    (SELECT COALESCE(array_agg(DISTINCT batch), '{}') FROM inserted WHERE status = 'pending') AS batches`;

interface StartedRow {
  app_id: string;
  options: NotificationOptions | null;
  fanout_position: number;
  fanned_out_at: Date | null;
}

export interface FanoutResult {
  /** false when the notification was already fanned out (a duplicate or re-run job) */
  ran: boolean;
  installations: number;
  batches: number;
}

/**
 * Turns a notification into delivery rows and delivery jobs. Resumable: progress
 * (`fanout_position`) moves in the same transaction as the rows it covers, so a fan-out killed
 * mid-way continues where it stopped and never counts an installation twice.
 */
@Injectable()
export class FanOutService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(DELIVER_QUEUE) private readonly deliverQueue: Queue<DeliverJob>,
    private readonly credentials: CredentialsService,
    @Inject(PUSH_PROVIDERS) private readonly providers: PushProvider[],
  ) {}

  async fanOut(notificationId: string, resumed: boolean): Promise<FanoutResult> {
    // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
    const [[started]]: [StartedRow[], number] = await this.db.query(
      `UPDATE notifications SET processing_started_at = COALESCE(processing_started_at, now())
       WHERE id = $1 RETURNING app_id, options, fanout_position, fanned_out_at`,
      [notificationId],
    );
    if (!started) return { ran: false, installations: 0, batches: 0 };
    if (started.fanned_out_at) {
      await this.enqueuePendingBatches(notificationId);
      await this.completeIfDone(notificationId);
      return { ran: false, installations: 0, batches: 0 };
    }
    // A re-run may follow a crash between a chunk's commit and the queueing of its jobs.
    if (resumed || started.fanout_position > 0) await this.enqueuePendingBatches(notificationId);

    const options = started.options ?? {};
    const wanted = options.platforms ?? ['ios', 'android', 'web'];
    const credentials = await this.credentials.forDelivery(started.app_id);
    const configured = this.providers.filter((p) => p.configured(credentials)).map((p) => p.platform);
    const batchSize = env().DELIVERY_BATCH_SIZE;

    let installations = 0;
    let batchCount = 0;
    for (;;) {
      const chunk = await this.db.transaction(async (manager) => {
        // The row lock serialises fan-outs of one notification, should two ever run.
        const [n] = await manager.query(
          `SELECT fanout_position AS position, fanout_batches AS batches, fanned_out_at,
             user_ids[fanout_position + 1 : fanout_position + $2] AS user_ids
           FROM notifications WHERE id = $1 FOR UPDATE`,
          [notificationId, USERS_PER_CHUNK],
        );
        if (n.fanned_out_at) return null;
        if (n.user_ids.length === 0) {
          await manager.query(`UPDATE notifications SET fanned_out_at = now() WHERE id = $1`, [notificationId]);
          return null;
        }
        const [r] = await manager.query(FANOUT_CHUNK_SQL, [
          started.app_id,
          n.user_ids,
          notificationId,
          batchSize,
          wanted,
          configured,
          n.batches,
        ]);
        await manager.query(
          `UPDATE notifications SET fanout_position = fanout_position + $2, fanout_batches = fanout_batches + $3,
             stat_users = stat_users + $4, stat_installations = stat_installations + $5, stat_skipped = stat_skipped + $6
           WHERE id = $1`,
          [notificationId, n.user_ids.length, r.batches_used, r.users, r.installations, r.skipped],
        );
        return { installations: r.installations as number, batches: r.batches as number[] };
      });
      if (!chunk) break;
      installations += chunk.installations;
      batchCount += chunk.batches.length;
      await this.enqueue(notificationId, chunk.batches);
    }
    await this.completeIfDone(notificationId);
    return { ran: true, installations, batches: batchCount };
  }

  /** Queues a job for every batch that still has pending rows; existing job ids make it a no-op. */
  async enqueuePendingBatches(notificationId: string): Promise<void> {
    const rows: { batch: number }[] = await this.db.query(
      `SELECT DISTINCT batch FROM deliveries WHERE notification_id = $1 AND status = 'pending'`,
      [notificationId],
    );
    await this.enqueue(notificationId, rows.map((r) => r.batch));
  }

  /** Sets completed_at once every installation is accepted, failed or skipped. */
  async completeIfDone(notificationId: string): Promise<void> {
    await this.db.query(
      `UPDATE notifications SET completed_at = now()
       WHERE id = $1 AND completed_at IS NULL AND fanned_out_at IS NOT NULL
         AND stat_accepted + stat_failed + stat_skipped >= stat_installations`,
      [notificationId],
    );
  }

  private async enqueue(notificationId: string, batches: number[]): Promise<void> {
    if (batches.length === 0) return;
    await this.deliverQueue.addBulk(
      batches.map((batch) => ({
        name: 'deliver',
        data: { notificationId, batch },
        opts: { jobId: deliverJobId(notificationId, batch) },
      })),
    );
  }
}
