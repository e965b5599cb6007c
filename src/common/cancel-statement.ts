import { completionCondition } from './completion-condition';
import { minuteCountsInsert } from './minute-counts';
import { DeliveryStatus, SkipReason, STILL_TO_SEND } from './vocabulary';
import { webhookOutboxInsert } from './webhook-events';

/** A cancelled notification's rows still to send ($3) of batch $2 (null: every batch) take status $4 and reason $5. */
const canceled = `canceled AS (
    UPDATE deliveries d SET status = $4::text, reason = $5::text, next_attempt_at = NULL, updated_at = now()
    WHERE d.notification_id = $1
      AND d.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = $1)
      AND ($2::int IS NULL OR d.batch = $2::int) AND d.status = ANY($3::text[])
      AND EXISTS (SELECT 1 FROM notifications n WHERE n.id = $1 AND n.canceled_at IS NOT NULL)
    RETURNING d.notification_id, d.installation_id, d.status
  )`;

/** A cancelled marketing message no longer counts for the frequency cap (docs/api.md#pacing). */
const receipts = `receipts AS (
    DELETE FROM marketing_receipts m USING canceled c
    WHERE m.installation_id = c.installation_id AND m.notification_id = c.notification_id
      AND (SELECT n.options ->> 'category' FROM notifications n WHERE n.id = $1) = 'marketing'
  )`;

/** The rows it skipped, in the per-minute counters (common/minute-counts.ts). */
const perMinute = `per_minute AS (
    ${minuteCountsInsert('SELECT notification_id, status FROM canceled')}
  )`;

const counted = `counted AS (SELECT count(*)::int AS n FROM canceled)`;

const finished = `finished AS (
    UPDATE notifications SET stat_skipped = stat_skipped + counted.n,
      completed_at = CASE WHEN completed_at IS NULL AND ${completionCondition(' + counted.n')} THEN now() ELSE completed_at END
    FROM counted
    WHERE id = $1 AND (counted.n > 0 OR $2::int IS NULL)
    RETURNING id, app_id, completed_at = now() AS completed
  )`;

const completedEvents = `completed_events AS (
    ${webhookOutboxInsert('notification.completed', 'SELECT app_id, id FROM finished WHERE completed')}
  )`;

/**
 * The one statement that skips a cancelled notification's rows still to send
 * (docs/api.md#scheduling): the API's cancel runs it for every batch, in the transaction that sets
 * canceled_at; the worker for one batch, on rows left by a retry or a worker that died while the
 * cancel ran.
 */
export const CANCEL_ROWS_SQL = `
  WITH ${canceled}, ${receipts}, ${perMinute}, ${counted}, ${finished}, ${completedEvents}
  SELECT id, completed FROM finished`;

/** The parameters of CANCEL_ROWS_SQL; `batch` null for every batch. */
export const cancelRowsParams = (notificationId: string, batch: number | null): unknown[] => [
  notificationId,
  batch,
  STILL_TO_SEND,
  'skipped' satisfies DeliveryStatus,
  SkipReason.Canceled,
];
