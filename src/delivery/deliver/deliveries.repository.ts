import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { COMMIT_WITHOUT_FLUSH } from '../../common/asynchronous-commit';
import { CANCEL_ROWS_SQL, cancelRowsParams } from '../../common/cancel-statement';
import { completionCondition } from '../../common/completion-condition';
import { minuteCountsInsert } from '../../common/minute-counts';
import { Platform, WebPushSubscription } from '../../common/platform';
import { preparedQuery } from '../../common/prepared-query';
import { DeliveryStatus, STILL_TO_SEND } from '../../common/vocabulary';
import { webhookOutboxInsert } from '../../common/webhook-events';
import { MAX_BADGE, PushContent } from '../providers/payloads';

/** A delivery row claimed for sending, with what its installation holds now. */
export interface ClaimedRow {
  installation_id: string;
  attempts: number;
  platform: Platform;
  push_token: string | null;
  web_push_subscription: WebPushSubscription | null;
  deleted_at: Date | null;
  invalidated_at: Date | null;
  /** device.locale, for the localized content (docs/api.md#localization). */
  locale: string | null;
  /** The iOS badge count after this send's `badge` or `badge_increment` (docs/api.md#badge-arithmetic); null on other platforms and for sends that move no count. */
  badge: number | null;
  /** For a send that starts a Live Activity: the installation's push-to-start token for its type (docs/api.md#live-activity-starts); else null. */
  start_token: string | null;
}

/** What a send does to the badge counts of its iOS installations: set them, add to them, or nothing. */
export interface BadgeChange {
  set: number | null;
  add: number;
}

export const NO_BADGE_CHANGE: BadgeChange = { set: null, add: 0 };

/** A notification as its delivery jobs need it. */
export interface NotificationToSend {
  appId: string;
  /** processing_started_at: the partition key of its rows (delivery.entity.ts), to the millisecond; null before its fan-out. */
  startedAt: Date | null;
  content: PushContent;
}

/** The columns of `notifications` a send reads (content; the API's stored row has them too). */
export type ContentRow = PushContent & { app_id: string; processing_started_at: Date | null };

/** What the worker sends of a notification, from its row (DeliveriesRepository.content, and a small send's job). */
export const toSend = (row: ContentRow): NotificationToSend => ({
  appId: row.app_id,
  startedAt: row.processing_started_at,
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
});

/** What a delivery row becomes after an attempt ("pending" again when it is retried). */
export interface RecordedOutcome {
  status: Extract<DeliveryStatus, 'accepted' | 'failed' | 'skipped' | 'pending'>;
  reason: string | null;
  nextAttemptAt: Date | null;
}

/** One claimed delivery row's outcome, to be written; `invalidation` when the provider refused its token. */
export interface DeliveryRecord {
  notificationId: string;
  /** The notification's processing_started_at (its rows' partition key), to the millisecond. */
  notificationStartedAt: Date;
  installationId: string;
  /** A marketing send's message: once accepted, the frequency cap counts it (docs/api.md#pacing). */
  marketing?: boolean;
  outcome: RecordedOutcome;
  invalidation?: Invalidation;
}

/** An installation whose token a provider refused, and the token that was refused. */
export interface Invalidation {
  installationId: string;
  reason: string;
  token: string;
}

/**
 * Names the one partition that holds a notification's rows (delivery.entity.ts), for statements
 * that know only its id: PostgreSQL then runs them on that partition alone (pruning at execution).
 */
export const ownPartition = (alias: string, notificationIdParam: string) =>
  `${alias}.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = ${notificationIdParam})`;

// Targeting and timing (docs/api.md#scheduling): "scheduled" rows are due at next_attempt_at like retries;
// a cancelled notification's rows are never claimed (cancelLeftovers skips them instead); the
// locale picks the localized content (docs/api.md#localization). $4 and $5 bound the notification's start
// (its partition), parameters known when execution begins, so the other partitions are left out
// before they are opened; $6 is `sending`, $7 the statuses still to send; $12 the ActivityAttributes
// type of a send that starts a Live Activity, whose token alone is read (null: none). Prepared: it runs once
// per batch (docs/decisions/0001-prepared-hot-statements.md). Its commit does not wait for the WAL flush
// (COMMIT_WITHOUT_FLUSH; docs/decisions/0012-claims-commit-without-waiting-for-wal.md).
const claimed = `claimed AS (
    UPDATE deliveries d SET status = $6::text, attempts = d.attempts + 1, updated_at = now()
    FROM installations i
    WHERE ${COMMIT_WITHOUT_FLUSH}
      AND d.notification_id = $1 AND d.notification_started_at >= $4 AND d.notification_started_at < $5
      AND d.batch = $2 AND i.id = d.installation_id
      AND (d.status = ANY($7::text[]) OR ($3::boolean AND d.status = $6::text))
      AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '1 second')
      AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.id = $1 AND n.canceled_at IS NOT NULL)
    RETURNING d.installation_id, d.attempts, i.platform, i.push_token, i.web_push_subscription, i.deleted_at, i.invalidated_at,
      i.device ->> 'locale' AS locale, i.live_activity_start_tokens ->> $12::text AS start_token
  )`;

/**
 * Badge arithmetic (docs/api.md#badge-arithmetic), as each installation's message is built: $8 sets
 * the count, else $9 is added (within 0..$11), on the live $10 (iOS) rows claimed, an increment on
 * the first attempt only, so a retry sends the count as it is. The counts live in their own narrow
 * table, half of each page free, so each is a heap-only update (migration InstallationBadges;
 * bench/README.md, "Message kinds"); a missing row is 0 and is inserted, with no key check on the
 * installation (docs/decisions/0010-no-foreign-key-from-badges-to-installations.md). A concurrent send's write
 * of the same count is waited for and then added to (ON CONFLICT re-reads the row it waited for),
 * so two +1 sends give 2; the rows are written in id order, so two sends do not deadlock. With
 * neither option (the usual send) the one-time filter leaves the table alone.
 */
const badged = `badged AS (
    INSERT INTO installation_badges AS b (installation_id, badge)
    SELECT installation_id, COALESCE($8::int, LEAST($11::int, GREATEST(0, $9::int))) FROM claimed c
    WHERE ($8::int IS NOT NULL OR $9::int <> 0) AND c.platform = $10::text AND c.deleted_at IS NULL AND c.invalidated_at IS NULL
      AND ($8::int IS NOT NULL OR c.attempts = 1)
    ORDER BY installation_id
    ON CONFLICT (installation_id) DO UPDATE SET badge = COALESCE($8::int, LEAST($11::int, GREATEST(0, b.badge + $9::int)))
    RETURNING b.installation_id, b.badge
  )`;

// Each claimed row finds the count written for it in one object keyed by installation, built once
// (an uncorrelated subquery: PostgreSQL evaluates it once per execution, whatever the plan), not by
// joining the two CTEs: PostgreSQL estimates each at one row, so the plan it keeps joined them in a
// nested loop that read every written count for every claimed row, 500 x 500 per batch
// (bench/README.md, "The badge write's nested loop and key check"). The count a retried increment
// sends is read only for a send that moves counts.
export const CLAIM_SQL = `
  WITH ${claimed}, ${badged}
  SELECT c.installation_id, c.attempts, c.platform, c.push_token, c.web_push_subscription, c.deleted_at, c.invalidated_at, c.locale,
    CASE WHEN c.platform = $10::text AND ($8::int IS NOT NULL OR $9::int <> 0) THEN COALESCE(
      ((SELECT jsonb_object_agg(n.installation_id, n.badge) FROM badged n) ->> c.installation_id::text)::int,
      (SELECT k.badge FROM installation_badges k WHERE k.installation_id = c.installation_id), 0) END AS badge, c.start_token
  FROM claimed c`;

/** CLAIM_SQL's parameters (DeliveriesRepository.claim). */
export function claimParams(notificationId: string, startedAt: Date, batch: number, reclaim: boolean, badge: BadgeChange, startType: string | null): unknown[] {
  return [
    notificationId,
    batch,
    reclaim,
    ...startedSpan([startedAt]),
    'sending' satisfies DeliveryStatus,
    STILL_TO_SEND,
    badge.set,
    badge.add,
    'ios' satisfies Platform,
    MAX_BADGE,
    startType,
  ];
}

/**
 * Bounds [from, to) covering notifications' starts, for the statements above: a Date has
 * milliseconds, the column microseconds, so `to` is one millisecond past the last.
 */
export const startedSpan = (starts: readonly Date[]): [Date, Date] => {
  const times = starts.map((start) => start.getTime());
  return [new Date(Math.min(...times)), new Date(Math.max(...times) + 1)];
};

/** The outcomes, one list per column ($1-$5); COMMIT_WITHOUT_FLUSH turns synchronous_commit off for this transaction. */
const outcome = `outcome AS (
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[])
      AS o(notification_id, installation_id, status, reason, next_attempt_at)
    WHERE ${COMMIT_WITHOUT_FLUSH}
  )`;

/** Rows still "sending" ($11) take their outcome: one primary-key probe each, in the starts' partitions ($9, $10). */
const recorded = `recorded AS (
    UPDATE deliveries d SET status = o.status, reason = o.reason, next_attempt_at = o.next_attempt_at, updated_at = now()
    FROM outcome o
    WHERE d.notification_id = o.notification_id AND d.installation_id = o.installation_id
      AND d.notification_started_at >= $9 AND d.notification_started_at < $10
      AND CASE d.status WHEN $11::text THEN true ELSE false END
    RETURNING d.notification_id, d.installation_id, d.status
  )`;

/** Accepted messages of marketing sends ($15, their notifications) not counted since their fan-out: what frequency caps count (docs/api.md#pacing). */
const receipts = `receipts AS (
    INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
    SELECT installation_id, now(), notification_id FROM recorded r WHERE status = $12::text AND notification_id = ANY($15::uuid[])
      AND NOT EXISTS (SELECT 1 FROM marketing_receipts m WHERE m.installation_id = r.installation_id AND m.notification_id = r.notification_id)
    ON CONFLICT DO NOTHING
  )`;

/** Those failed ($13) or skipped ($14) no longer count. */
const unclaimed = `unclaimed AS (
    DELETE FROM marketing_receipts m USING recorded r
    WHERE r.notification_id = ANY($15::uuid[]) AND r.status IN ($13::text, $14::text)
      AND m.installation_id = r.installation_id AND m.notification_id = r.notification_id
  )`;

/** The per-minute counters the dashboard draws (common/minute-counts.ts). */
const perMinute = `per_minute AS (
    ${minuteCountsInsert('SELECT notification_id, status FROM recorded')}
  )`;

/** Refused tokens ($6-$8), invalidated only if still the installation's. */
const invalidated = `invalidated AS (
    UPDATE installations i SET invalidated_at = now(), invalid_reason = u.reason
    FROM unnest($6::uuid[], $7::text[], $8::text[]) AS u(id, reason, token)
    WHERE i.id = u.id AND i.invalidated_at IS NULL
      AND (i.push_token = u.token OR i.web_push_subscription ->> 'endpoint' = u.token)
    RETURNING i.app_id, i.id
  )`;

const invalidatedEvents = `invalidated_events AS (
    ${webhookOutboxInsert('installation.invalidated', 'SELECT app_id, id FROM invalidated')}
  )`;

/** Per notification, what its rows became: accepted ($12), failed ($13), skipped ($14). */
const counted = `counted AS (
    SELECT notification_id,
           count(*) FILTER (WHERE status = $12::text)::int AS accepted,
           count(*) FILTER (WHERE status = $13::text)::int AS failed,
           count(*) FILTER (WHERE status = $14::text)::int AS skipped
    FROM recorded GROUP BY notification_id
  )`;

const finished = `finished AS (
    UPDATE notifications n SET
      stat_accepted = stat_accepted + c.accepted, stat_failed = stat_failed + c.failed, stat_skipped = stat_skipped + c.skipped,
      completed_at = CASE
        WHEN completed_at IS NULL AND ${completionCondition(' + c.accepted + c.failed + c.skipped')} THEN now()
        ELSE completed_at END
    FROM counted c
    WHERE n.id = c.notification_id AND c.accepted + c.failed + c.skipped > 0
    RETURNING n.id, n.app_id, n.completed_at = now() AS completed
  )`;

const completedEvents = `completed_events AS (
    ${webhookOutboxInsert('notification.completed', 'SELECT app_id, id FROM finished WHERE completed')}
  )`;

/**
 * Outcomes of claimed rows, of any notifications, in one statement (so atomic without a
 * transaction): each row takes its outcome, the refused tokens are invalidated, and each
 * notification's counters move by what its rows became. Only rows still "sending" are ours: the
 * counters move exactly with these transitions, so a statement repeated after its answer was lost
 * changes nothing. The rows are found by primary key, one index probe per outcome (a nested loop
 * over the unnested lists), so the cost follows the outcomes written, not the size of the batch or
 * the send. A token is invalidated only if it is still the installation's.
 *
 * Its plan must probe the primary key once per outcome, whatever the statistics say: the
 * "sending" test is a CASE, which statistics taken while the rows were pending cannot mislead
 * (docs/decisions/0002-outcomes-probe-the-primary-key.md; test/integration/delivery-storage.int-spec.ts).
 *
 * Its commit does not wait for the WAL to reach the disk (synchronous_commit is off for this
 * statement's own transaction). It risks only duplicates, sent again by the sweeper after a crash
 * of the PostgreSQL server (docs/decisions/0003-outcomes-commit-without-waiting-for-wal.md).
 *
 * Deliveries are partitioned by the notification's start (delivery.entity.ts): $9 and $10 bound
 * the starts of the outcomes' notifications, parameters known when execution begins, so
 * PostgreSQL leaves every other partition out before it opens them (a join value or a subquery
 * would leave it to execution, after each partition's indexes were opened). The notifications this
 * statement completed answer \`completed\` (completed_at = now() holds only in the transaction that
 * set it: now() is when its own transaction began).
 *
 * The invalidations and completions it makes write their webhook events (docs/api.md#webhooks) in the
 * same statement (`invalidated_events`, `completed_events`): work in proportion to those, none for
 * an ordinary outcome.
 *
 * The same statement adds the outcomes it wrote to the per-minute counters (`delivery_minutes`,
 * delivery-minute.entity.ts) that the operator dashboard draws: one row per notification, minute
 * and outcome per write, not per delivery, in a stable order so two workers' writes lock them
 * alike. So the time series never read `deliveries`, which has no index on time, by design.
 */
export const RECORD_OUTCOMES_SQL = `
  WITH ${outcome}, ${recorded}, ${receipts}, ${unclaimed}, ${perMinute}, ${invalidated}, ${invalidatedEvents}, ${counted}, ${finished}, ${completedEvents}
  SELECT id, completed FROM finished`;

/** The statuses RECORD_OUTCOMES_SQL reads, as its parameters $11-$14. */
const OUTCOME_WORDS = ['sending', 'accepted', 'failed', 'skipped'] as const satisfies readonly DeliveryStatus[];

/**
 * Uuids or status words as PostgreSQL's array literal, for a `::uuid[]` or `::text[]` parameter:
 * such values never need quoting, so the literal is one join, not node-postgres's escaping of each
 * element into a string built piece by piece (bench/README.md, "Fewer objects per send"). Not for
 * free text or empty strings, which may need quotes.
 */
export const plainArray = (values: readonly string[]): string => `{${values.join(',')}}`;

/** The parameters of RECORD_OUTCOMES_SQL: one list per column, then the range of the starts. */
export function recordOutcomesParams(records: readonly DeliveryRecord[]): unknown[] {
  const invalidations = records.flatMap((r) => (r.invalidation ? [r.invalidation] : []));
  return [
    plainArray(records.map((r) => r.notificationId)),
    plainArray(records.map((r) => r.installationId)),
    plainArray(records.map((r) => r.outcome.status)),
    records.map((r) => r.outcome.reason?.slice(0, 255) ?? null),
    records.map((r) => r.outcome.nextAttemptAt),
    invalidations.map((i) => i.installationId),
    invalidations.map((i) => i.reason.slice(0, 255)),
    invalidations.map((i) => i.token),
    ...startedSpan(records.map((r) => r.notificationStartedAt)),
    ...OUTCOME_WORDS,
    [...new Set(records.flatMap((r) => (r.marketing ? [r.notificationId] : [])))],
  ];
}

/** Completes what is complete, writing each completion's webhook events with it (docs/api.md#webhooks). */
const completeWhere = (where: string) => `WITH finished AS (
         UPDATE notifications SET completed_at = now()
         WHERE ${where} completed_at IS NULL AND ${completionCondition()}
         RETURNING id, app_id
       ), completed_events AS (
         ${webhookOutboxInsert('notification.completed', 'SELECT app_id, id FROM finished')}
       )
       SELECT id FROM finished`;

const COMPLETE_ONE_SQL = completeWhere('id = $1 AND');

const COMPLETE_ALL_SQL = completeWhere('');

/**
 * The worker's delivery rows: claiming a batch, recording outcomes with the invalidations and
 * statistics they cause, and completing notifications.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Due rows of the batch, pending → sending; `reclaim` also takes back rows already "sending".
   * `startedAt`: the notification's processing_started_at (NotificationToSend).
   */
  async claim(
    notificationId: string,
    startedAt: Date,
    batch: number,
    reclaim: boolean,
    badge: BadgeChange = NO_BADGE_CHANGE,
    startType: string | null = null,
  ): Promise<ClaimedRow[]> {
    const { rows } = await preparedQuery<ClaimedRow>(
      this.db,
      'deliveries_claim',
      CLAIM_SQL,
      claimParams(notificationId, startedAt, batch, reclaim, badge, startType),
    );
    return rows;
  }

  /**
   * Writes outcomes of claimed rows, with the invalidations and statistics they cause, in one
   * statement (RECORD_OUTCOMES_SQL); answers the notifications it
   * completed. Prepared once per connection: the worker runs it several times a second
   * (docs/decisions/0001-prepared-hot-statements.md).
   */
  async recordOutcomes(records: readonly DeliveryRecord[]): Promise<string[]> {
    if (records.length === 0) return [];
    const { rows } = await preparedQuery<{ id: string; completed: boolean }>(
      this.db,
      'deliveries_record_outcomes',
      RECORD_OUTCOMES_SQL,
      recordOutcomesParams(records),
    );
    return rows.filter((row) => row.completed).map((row) => row.id);
  }

  /** A notification's app and what its messages carry; undefined when it does not exist. */
  async content(notificationId: string): Promise<NotificationToSend | undefined> {
    const [row] = await this.db.query<ContentRow[]>(
      `SELECT id, app_id, processing_started_at, title, body, image_url, action_url, data, options, localizations FROM notifications WHERE id = $1`,
      [notificationId],
    );
    return row && toSend(row);
  }

  /** Batches of the notification that still have rows to send, and when the last of them is due (null: now). */
  async pendingBatches(notificationId: string): Promise<{ batch: number; due: Date | null }[]> {
    return this.db.query(
      `SELECT batch, max(next_attempt_at) AS due FROM deliveries d
       WHERE d.notification_id = $1 AND ${ownPartition('d', '$1')} AND d.status = ANY($2::text[]) GROUP BY batch`,
      [notificationId, STILL_TO_SEND],
    );
  }

  /**
   * A cancelled notification's rows of one batch that are still to send (left by a retry or a
   * worker that died while the cancel ran): skipped as the API's cancel skips them, with the same
   * statement (CANCEL_ROWS_SQL); nothing when the notification is not cancelled.
   */
  async cancelLeftovers(notificationId: string, batch: number): Promise<void> {
    await this.db.query(CANCEL_ROWS_SQL, cancelRowsParams(notificationId, batch));
  }

  /** Sets completed_at if the notification is complete (common/completion-condition.ts); true when this did. */
  async completeIfDone(notificationId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(COMPLETE_ONE_SQL, [notificationId]);
    return rows.length > 0;
  }

  /** Sets completed_at on every complete notification that lacks it; their ids. */
  async completeFinished(): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(COMPLETE_ALL_SQL);
    return rows.map((row) => row.id);
  }
}
