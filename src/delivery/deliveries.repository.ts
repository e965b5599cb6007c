import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { completionCondition } from '../common/completion-condition';
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
  /** device.locale, for the localized content (docs/api.md 12). */
  locale: string | null;
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

// Moved to common (the API completes a notification it cancels); re-exported for delivery's users.
export { completionCondition };

/**
 * Names the one partition that holds a notification's rows (delivery.entity.ts), for statements
 * that know only its id: PostgreSQL then runs them on that partition alone (pruning at execution).
 */
export const ownPartition = (alias: string, notificationIdParam: string) =>
  `${alias}.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = ${notificationIdParam})`;

// Targeting and timing (docs/api.md 11): "scheduled" rows are due at next_attempt_at like retries;
// a cancelled notification's rows are never claimed (cancelLeftovers skips them instead); the
// locale picks the localized content (docs/api.md 12).
const CLAIM_SQL = `UPDATE deliveries d SET status = 'sending', attempts = d.attempts + 1, updated_at = now()
         FROM installations i
         WHERE d.notification_id = $1 AND ${ownPartition('d', '$1')} AND d.batch = $2 AND i.id = d.installation_id
           AND (d.status IN ('pending', 'scheduled') OR ($3::boolean AND d.status = 'sending'))
           AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '1 second')
           AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.id = $1 AND n.canceled_at IS NOT NULL)
         RETURNING d.installation_id, d.attempts, i.platform, i.push_token, i.web_push_subscription, i.deleted_at, i.invalidated_at,
           i.device ->> 'locale' AS locale`;

/**
 * A cancelled notification's rows of one batch that are still to send (left by a retry or a
 * worker that died while the cancel ran): skipped/Canceled, counted, completing the notification.
 */
const CANCEL_LEFTOVERS_SQL = `
  WITH canceled AS (
    UPDATE deliveries d SET status = 'skipped', reason = 'Canceled', next_attempt_at = NULL, updated_at = now()
    WHERE d.notification_id = $1 AND ${ownPartition('d', '$1')} AND d.batch = $2 AND d.status IN ('pending', 'scheduled')
      AND EXISTS (SELECT 1 FROM notifications n WHERE n.id = $1 AND n.canceled_at IS NOT NULL)
    RETURNING 1
  ), counted AS (SELECT count(*)::int AS n FROM canceled)
  UPDATE notifications SET stat_skipped = stat_skipped + counted.n,
    completed_at = CASE WHEN completed_at IS NULL AND ${completionCondition(' + counted.n')} THEN now() ELSE completed_at END
  FROM counted
  WHERE id = $1 AND counted.n > 0`;

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
      `SELECT id, app_id, title, body, image_url, action_url, data, options, localizations FROM notifications WHERE id = $1`,
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
        localizations: row.localizations,
      },
    };
  }

  /** Batches of the notification that still have rows to send, and when the last of them is due (null: now). */
  async pendingBatches(notificationId: string): Promise<{ batch: number; due: Date | null }[]> {
    return this.db.query(
      `SELECT batch, max(next_attempt_at) AS due FROM deliveries d
       WHERE d.notification_id = $1 AND ${ownPartition('d', '$1')} AND d.status IN ('pending', 'scheduled') GROUP BY batch`,
      [notificationId],
    );
  }

  /** See CANCEL_LEFTOVERS_SQL; nothing when the notification is not cancelled. */
  async cancelLeftovers(notificationId: string, batch: number): Promise<void> {
    await this.db.query(CANCEL_LEFTOVERS_SQL, [notificationId, batch]);
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
