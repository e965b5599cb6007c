import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Platform, WebPushSubscription } from '../common/platform';
import { PushContent } from './providers/payloads';

/** A delivery row claimed for sending, with what its installation holds now. */
export interface ClaimedRow {
  installation_id: string;
  attempts: number;
  platform: Platform;
  push_token: string | null;
  web_push_subscription: WebPushSubscription | null;
  deleted_at: Date | null;
  invalidated_at: Date | null;
}

/** What a delivery row becomes after an attempt ("pending" again when it is retried). */
export interface RecordedOutcome {
  status: 'accepted' | 'failed' | 'skipped' | 'pending';
  reason: string | null;
  nextAttemptAt: Date | null;
}

/** An installation whose token a provider refused, and the token that was refused. */
export interface Invalidation {
  installationId: string;
  reason: string;
  token: string;
}

/**
 * The completion rule of completion.ts (`isComplete`) in SQL, on a `notifications` row; `added`
 * is SQL for outcomes counted in the same statement, not yet in the row. The two are kept equal by
 * test/e2e/delivery-storage.e2e-spec.ts.
 */
export const completionCondition = (added = '') =>
  `fanned_out_at IS NOT NULL AND stat_accepted + stat_failed + stat_skipped${added} >= stat_installations`;

/**
 * Names the one partition that holds a notification's rows (delivery.entity.ts), for statements
 * that know only its id: PostgreSQL then runs them on that partition alone (pruning at execution).
 */
export const ownPartition = (alias: string, notificationIdParam: string) =>
  `${alias}.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = ${notificationIdParam})`;

const CLAIM_SQL = `UPDATE deliveries d SET status = 'sending', attempts = d.attempts + 1, updated_at = now()
         FROM installations i
         WHERE d.notification_id = $1 AND ${ownPartition('d', '$1')} AND d.batch = $2 AND i.id = d.installation_id
           AND (d.status = 'pending' OR ($3::boolean AND d.status = 'sending'))
           AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '1 second')
         RETURNING d.installation_id, d.attempts, i.platform, i.push_token, i.web_push_subscription, i.deleted_at, i.invalidated_at`;

/**
 * A batch's outcomes, and how many rows each status gained. Only rows still "sending" are ours:
 * the counters move exactly with these transitions. Each row finds its outcome in $3, a JSON object
 * keyed by installation id, rather than through a join with the outcome list: deliveries keep no
 * index on status, so the planner cannot know how many rows are "sending", and with a join it
 * was seen to compare every row of the batch with every outcome (500 x 500 per batch, 50 to 400 ms).
 * The batch number keeps the scan to the batch's own rows (its index), however big the send.
 */
export const RECORD_OUTCOMES_SQL = `
  WITH updated AS (
    UPDATE deliveries d SET
      status = $3::jsonb -> d.installation_id::text ->> 0,
      reason = $3::jsonb -> d.installation_id::text ->> 1,
      next_attempt_at = ($3::jsonb -> d.installation_id::text ->> 2)::timestamptz,
      updated_at = now()
    WHERE d.notification_id = $1 AND ${ownPartition('d', '$1')} AND d.batch = $4 AND d.installation_id = ANY($2::uuid[]) AND d.status = 'sending'
    RETURNING d.status
  )
  SELECT count(*) FILTER (WHERE status = 'accepted')::int AS accepted,
         count(*) FILTER (WHERE status = 'failed')::int AS failed,
         count(*) FILTER (WHERE status = 'skipped')::int AS skipped
  FROM updated`;

/** Invalidates only if the token we used is still the installation's token. */
const INVALIDATE_SQL = `UPDATE installations i SET invalidated_at = now(), invalid_reason = u.reason
           FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(id, reason, token)
           WHERE i.id = u.id AND i.invalidated_at IS NULL
             AND (i.push_token = u.token OR i.web_push_subscription ->> 'endpoint' = u.token)`;

const COUNT_OUTCOMES_SQL = `UPDATE notifications SET
             stat_accepted = stat_accepted + $2, stat_failed = stat_failed + $3, stat_skipped = stat_skipped + $4,
             completed_at = CASE
               WHEN completed_at IS NULL AND ${completionCondition(' + $2 + $3 + $4')} THEN now()
               ELSE completed_at END
           WHERE id = $1
           RETURNING completed_at = now() AS completed`;

const COMPLETE_ONE_SQL = `UPDATE notifications SET completed_at = now()
       WHERE id = $1 AND completed_at IS NULL AND ${completionCondition()}
       RETURNING id`;

const COMPLETE_ALL_SQL = `UPDATE notifications SET completed_at = now()
       WHERE completed_at IS NULL AND ${completionCondition()}
       RETURNING id`;

/**
 * The worker's delivery rows: claiming a batch, recording its outcomes with the invalidations and
 * statistics they cause, and completing notifications.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Due rows of the batch, pending → sending; `reclaim` also takes back rows already "sending". */
  async claim(notificationId: string, batch: number, reclaim: boolean): Promise<ClaimedRow[]> {
    // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
    return (await this.db.query(CLAIM_SQL, [notificationId, batch, reclaim]))[0];
  }

  /**
   * Records the outcome of each claimed row (`finals[i]` for `rows[i]`), the invalidations and the
   * notification's statistics (completing it when they cover every installation) in one transaction.
   * True when this completed the notification. (completed_at = now() only for the transaction that
   * set it: now() is the time its own transaction began.)
   */
  async recordOutcomes(
    notificationId: string,
    batch: number,
    rows: ClaimedRow[],
    finals: RecordedOutcome[],
    invalidations: Invalidation[],
  ): Promise<boolean> {
    return this.db.transaction(async (manager) => {
      const outcomesById = Object.fromEntries(rows.map((r, i) => [r.installation_id, [finals[i].status, finals[i].reason, finals[i].nextAttemptAt]]));
      const [counts] = await manager.query(RECORD_OUTCOMES_SQL, [notificationId, rows.map((r) => r.installation_id), JSON.stringify(outcomesById), batch]);
      if (invalidations.length > 0) {
        await manager.query(INVALIDATE_SQL, [
          invalidations.map((i) => i.installationId),
          invalidations.map((i) => i.reason.slice(0, 255)),
          invalidations.map((i) => i.token),
        ]);
      }
      if (counts.accepted + counts.failed + counts.skipped === 0) return false;
      // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
      const [[counted]]: [{ completed: boolean }[], number] = await manager.query(COUNT_OUTCOMES_SQL, [
        notificationId,
        counts.accepted,
        counts.failed,
        counts.skipped,
      ]);
      return counted?.completed === true;
    });
  }

  /** A notification's app and what its messages carry; undefined when it does not exist. */
  async content(notificationId: string): Promise<{ appId: string; content: PushContent } | undefined> {
    const [row] = await this.db.query(
      `SELECT id, app_id, title, body, image_url, action_url, data, options FROM notifications WHERE id = $1`,
      [notificationId],
    );
    if (!row) return undefined;
    return {
      appId: row.app_id,
      content: {
        id: row.id,
        title: row.title,
        body: row.body,
        image_url: row.image_url,
        action_url: row.action_url,
        data: row.data,
        options: row.options,
      },
    };
  }

  /** Batches of the notification that still have pending rows. */
  async pendingBatches(notificationId: string): Promise<number[]> {
    const rows: { batch: number }[] = await this.db.query(
      `SELECT DISTINCT batch FROM deliveries d WHERE d.notification_id = $1 AND ${ownPartition('d', '$1')} AND d.status = 'pending'`,
      [notificationId],
    );
    return rows.map((r) => r.batch);
  }

  /** Sets completed_at if the notification is complete (see completion.ts); true when this did. */
  async completeIfDone(notificationId: string): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.db.query(COMPLETE_ONE_SQL, [notificationId]);
    return rows.length > 0;
  }

  /** Sets completed_at on every complete notification that lacks it; their ids. */
  async completeFinished(): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await this.db.query(COMPLETE_ALL_SQL);
    return rows.map((row) => row.id);
  }
}
