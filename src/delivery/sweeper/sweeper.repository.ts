import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DeliveryStatus, STILL_TO_SEND } from '../../common/vocabulary';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';

/** Unfinished and begun over $1 seconds (DELIVERY_STUCK_MS) ago: a younger notification cannot have a row stuck that long. */
const OVERDUE_NOTIFICATION = `n.completed_at IS NULL AND n.processing_started_at < now() - make_interval(secs => $1)`;

export interface BatchRef {
  notification_id: string;
  batch: number;
}

/** Deliveries are reached through unfinished notifications (partial index) and the primary key: no status index, so their updates stay HOT. */
@Injectable()
@SqlFile('sweeper.repository.sql')
export class SweeperRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Unfinished, unfanned notifications accepted and due (docs/api.md#scheduling; cancelled: at once) over
   * `olderThanMs` ago; oldest first. `claimable`: a scheduled send no claim has started, which a due-sends
   * job takes (docs/api.md#due-sends).
   */
  @GenerateSql({ params: [60_000, 100] })
  async unfannedNotifications(olderThanMs: number, limit: number): Promise<{ id: string; claimable: boolean }[]> {
    return this.db.query(
      `SELECT id, (send_at IS NOT NULL AND processing_started_at IS NULL AND canceled_at IS NULL) AS claimable FROM notifications
       WHERE completed_at IS NULL AND fanned_out_at IS NULL AND created_at < now() - make_interval(secs => $1 / 1000.0)
         AND (send_at IS NULL OR send_at < now() - make_interval(secs => $1 / 1000.0) OR canceled_at IS NOT NULL)
         -- A fan-out held behind its app's window is owed no job yet (docs/api.md#fair-sharing).
         AND NOT EXISTS (SELECT 1 FROM fair_share_fanouts f WHERE f.notification_id = notifications.id AND f.queued_at IS NULL)
       ORDER BY created_at LIMIT $2`,
      [olderThanMs, limit],
    );
  }

  /** Rows "sending" for longer than `stuckSeconds`, pending again; the batches they belong to. */
  @GenerateSql({ params: [60] })
  async resetStuck(stuckSeconds: number): Promise<BatchRef[]> {
    const [reset]: [BatchRef[], number] = await this.db.query(
      `UPDATE deliveries d SET status = $2::text, next_attempt_at = NULL, updated_at = now()
       FROM notifications n
       WHERE ${OVERDUE_NOTIFICATION}
         AND d.notification_id = n.id AND d.status = $3::text AND d.updated_at < now() - make_interval(secs => $1)
       RETURNING d.notification_id, d.batch`,
      [stuckSeconds, 'pending' satisfies DeliveryStatus, 'sending' satisfies DeliveryStatus],
    );
    return reset;
  }

  /** Batches with rows pending or scheduled (docs/api.md#scheduling), and due, for longer than `stuckSeconds`. */
  @GenerateSql({ params: [60, 100] })
  overdueBatches(stuckSeconds: number, limit: number): Promise<BatchRef[]> {
    return this.db.query(
      `SELECT DISTINCT d.notification_id, d.batch FROM notifications n JOIN deliveries d ON d.notification_id = n.id
       WHERE ${OVERDUE_NOTIFICATION}
         AND d.status = ANY($3::text[]) AND d.updated_at < now() - make_interval(secs => $1)
         AND (d.next_attempt_at IS NULL OR d.next_attempt_at < now() - make_interval(secs => $1))
         -- A batch held behind its app's window is owed no job yet (docs/api.md#fair-sharing).
         AND NOT EXISTS (SELECT 1 FROM fair_share_batches f WHERE f.notification_id = d.notification_id AND f.batch = d.batch AND f.queued_at IS NULL)
       LIMIT $2`,
      [stuckSeconds, limit, STILL_TO_SEND],
    );
  }

  @GenerateSql({ params: [] })
  async purgeIdempotencyKeys(): Promise<number> {
    return (await this.db.query<[unknown[], number]>(`DELETE FROM idempotency_keys WHERE expires_at <= now()`))[1];
  }
}
