import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { COMMIT_WITHOUT_FLUSH } from '../../common/asynchronous-commit';
import { CANCEL_ROWS_SQL, cancelRowsParams } from '../../common/cancel-statement';
import { completionCondition } from '../../common/completion-condition';
import { minuteCountsInsert } from '../../common/minute-counts';
import { Platform, WebPushSubscription } from '../../common/platform';
import { preparedQuery } from '../../common/prepared-query';
import { compile, valuesOf } from '../../common/sql/named';
import { contentOf, type NotificationContentRow } from '../../common/notification';
import { ownPartition } from '../../common/sql/own-partition';
import { DeliveryStatus, STILL_TO_SEND } from '../../common/vocabulary';
import { webhookOutboxInsert } from '../../common/webhook-events';
import { HELD_SQL, type StoredVariant } from '../../common/variants';
import { MAX_BADGE, PushContent } from '../providers/payloads';
import { needsRendering } from '../providers/personalize';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';
import { AT, ID, OTHER_ID } from '../../queries/fixtures';

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
  /** For a widget push: the installation's WidgetKit push token (docs/api.md#widgets); else null. */
  widget_token: string | null;
  /** For a send to render (docs/api.md#liquid): what the installation gives its variables; else null. */
  personal: { user_id: string | null; app_version: string | null; properties: Record<string, unknown> | null } | null;
  /** Its variant's index in the notification's `variants` (docs/api.md#variants); null for a send without. */
  variant: number | null;
}

/** What a send does to the badge counts of its iOS installations: set them, add to them, or nothing. */
export interface BadgeChange {
  set: number | null;
  add: number;
}

export const NO_BADGE_CHANGE: BadgeChange = { set: null, add: 0 };

/** What a provider needs of a notification, from its stored row. */
export const pushContent = (row: NotificationContentRow): PushContent => {
  const { app_id: _app, processing_started_at: _start, template, variables, variants: _variants, ...content } = contentOf(row);
  // Decided once per notification (docs/api.md#liquid): a send without Liquid is sent as before.
  const liquid = (template !== null || content.options?.personalize === true) && needsRendering(content);
  return liquid ? { ...content, personalization: { variables } } : content;
};

/**
 * What each variant's rows carry (docs/api.md#variants): the send's data and options with the
 * variant's texts, rendered as its template's or as the send's (options.personalize); null for a
 * send without variants. Built once per notification.
 */
export const variantContents = (row: NotificationContentRow): PushContent[] | null =>
  row.variants?.map((variant: StoredVariant) =>
    pushContent({ ...row, ...variant.notification, template: variant.template, variables: variant.variables, variants: null }),
  ) ?? null;

/** What a delivery row becomes after an attempt ("pending" again when it is retried). */
export interface RecordedOutcome {
  status: Extract<DeliveryStatus, 'accepted' | 'failed' | 'skipped' | 'pending'>;
  reason: string | null;
  nextAttemptAt: Date | null;
  /** The provider's id of an accepted message (docs/api.md#provider-message-ids); absent otherwise. */
  providerMessageId?: string | null;
}

/** One claimed delivery row's outcome, to be written; `invalidation` when the provider refused its token. */
export interface DeliveryRecord {
  notificationId: string;
  notificationStartedAt: Date;
  installationId: string;
  /** A marketing send's message: once accepted, the frequency cap counts it (docs/api.md#pacing). */
  marketing?: boolean;
  outcome: RecordedOutcome;
  invalidation?: Invalidation;
}

export interface Invalidation {
  installationId: string;
  reason: string;
  token: string;
}

// "scheduled" rows are due at next_attempt_at (docs/api.md#scheduling); a cancelled send's rows are never claimed.
const claimed = `claimed AS (
    UPDATE deliveries d SET status = :sending::text, attempts = d.attempts + 1, updated_at = now()
    FROM installations i
    WHERE ${COMMIT_WITHOUT_FLUSH}
      AND d.notification_id = :notification_id AND d.notification_started_at >= :started_from AND d.notification_started_at < :started_to
      AND d.batch = :batch AND i.id = d.installation_id
      AND (d.status = ANY(:still_to_send::text[]) OR (:reclaim::boolean AND d.status = :sending::text))
      AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '1 second')
      AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.id = :notification_id AND n.canceled_at IS NOT NULL)
    RETURNING d.installation_id, d.attempts, i.platform, i.push_token, i.web_push_subscription, i.deleted_at, i.invalidated_at,
      i.device ->> 'locale' AS locale, i.live_activity_start_tokens ->> :start_type::text AS start_token,
      CASE WHEN :widgets::boolean THEN i.widget_push_token END AS widget_token, d.variant,
      CASE WHEN :personalize::boolean THEN jsonb_build_object('user_id', i.user_id, 'app_version', i.device ->> 'app_version', 'properties', i.properties) END
        AS personal
  )`;

/** docs/api.md#badge-arithmetic: set or add (within 0..:max_badge) on live iOS rows; an increment on the first attempt only. */
const badged = `badged AS (
    INSERT INTO installation_badges AS b (installation_id, badge)
    SELECT installation_id, COALESCE(:badge_set::int, LEAST(:max_badge::int, GREATEST(0, :badge_add::int))) FROM claimed c
    WHERE (:badge_set::int IS NOT NULL OR :badge_add::int <> 0) AND c.platform = :ios::text AND c.deleted_at IS NULL AND c.invalidated_at IS NULL
      AND (:badge_set::int IS NOT NULL OR c.attempts = 1)
    ORDER BY installation_id
    ON CONFLICT (installation_id) DO UPDATE SET badge = COALESCE(:badge_set::int, LEAST(:max_badge::int, GREATEST(0, b.badge + :badge_add::int)))
    RETURNING b.installation_id, b.badge
  )`;

// Counts come from one object built once, not a join run as a nested loop (bench/HISTORY.md, "The badge write's nested loop and key check").
const CLAIM = compile(`
  WITH ${claimed}, ${badged}
  SELECT c.installation_id, c.attempts, c.platform, c.push_token, c.web_push_subscription, c.deleted_at, c.invalidated_at, c.locale,
    CASE WHEN c.platform = :ios::text AND (:badge_set::int IS NOT NULL OR :badge_add::int <> 0) THEN COALESCE(
      ((SELECT jsonb_object_agg(n.installation_id, n.badge) FROM badged n) ->> c.installation_id::text)::int,
      (SELECT k.badge FROM installation_badges k WHERE k.installation_id = c.installation_id), 0) END AS badge, c.start_token, c.widget_token, c.personal,
    c.variant
  FROM claimed c`);

export const CLAIM_SQL = CLAIM.text;

export function claimParams(
  notificationId: string,
  startedAt: Date,
  batch: number,
  reclaim: boolean,
  badge: BadgeChange,
  startType: string | null,
  widgets = false,
  personalize = false,
): unknown[] {
  const [startedFrom, startedTo] = startedSpan([startedAt]);
  return valuesOf(CLAIM, {
    notification_id: notificationId,
    batch,
    reclaim,
    started_from: startedFrom,
    started_to: startedTo,
    sending: 'sending' satisfies DeliveryStatus,
    still_to_send: STILL_TO_SEND,
    badge_set: badge.set,
    badge_add: badge.add,
    ios: 'ios' satisfies Platform,
    max_badge: MAX_BADGE,
    start_type: startType,
    widgets,
    personalize,
  });
}

/** Bounds [from, to) of the starts; `to` is 1 ms past the last, as the column has microseconds. */
export const startedSpan = (starts: readonly Date[]): [Date, Date] => {
  const times = starts.map((start) => start.getTime());
  return [new Date(Math.min(...times)), new Date(Math.max(...times) + 1)];
};

/** The outcomes, one list per column; COMMIT_WITHOUT_FLUSH turns synchronous_commit off for this transaction. */
const outcome = `outcome AS (
    SELECT * FROM unnest(:notification_ids::uuid[], :installation_ids::uuid[], :statuses::text[], :reasons::text[], :next_attempts::timestamptz[],
        :provider_message_ids::text[])
      AS o(notification_id, installation_id, status, reason, next_attempt_at, provider_message_id)
    WHERE ${COMMIT_WITHOUT_FLUSH}
  )`;

/** Rows still "sending" take their outcome: one primary-key probe each, in the starts' partitions. */
const recorded = `recorded AS (
    UPDATE deliveries d SET status = o.status, reason = o.reason, next_attempt_at = o.next_attempt_at, provider_message_id = o.provider_message_id,
      updated_at = now()
    FROM outcome o
    WHERE d.notification_id = o.notification_id AND d.installation_id = o.installation_id
      AND d.notification_started_at >= :started_from AND d.notification_started_at < :started_to
      AND CASE d.status WHEN :sending::text THEN true ELSE false END
    RETURNING d.notification_id, d.installation_id, d.status
  )`;

/** Accepted messages of marketing sends: what frequency caps count (docs/api.md#pacing). */
const receipts = `receipts AS (
    INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
    SELECT installation_id, now(), notification_id FROM recorded r WHERE status = :accepted::text AND notification_id = ANY(:marketing_ids::uuid[])
      AND NOT EXISTS (SELECT 1 FROM marketing_receipts m WHERE m.installation_id = r.installation_id AND m.notification_id = r.notification_id)
    ON CONFLICT DO NOTHING
  )`;

/** A marketing message failed or skipped no longer counts under the cap. */
const unclaimed = `unclaimed AS (
    DELETE FROM marketing_receipts m USING recorded r
    WHERE r.notification_id = ANY(:marketing_ids::uuid[]) AND r.status IN (:failed::text, :skipped::text)
      AND m.installation_id = r.installation_id AND m.notification_id = r.notification_id
  )`;

const perMinute = `per_minute AS (
    ${minuteCountsInsert('SELECT notification_id, status FROM recorded')}
  )`;

/** Refused tokens, invalidated only if still the installation's. */
const invalidated = `invalidated AS (
    UPDATE installations i SET invalidated_at = now(), invalid_reason = u.reason
    FROM unnest(:invalid_ids::uuid[], :invalid_reasons::text[], :invalid_tokens::text[]) AS u(id, reason, token)
    WHERE i.id = u.id AND i.invalidated_at IS NULL
      AND (i.push_token = u.token OR i.web_push_subscription ->> 'endpoint' = u.token)
    RETURNING i.app_id, i.id
  )`;

const invalidatedEvents = `invalidated_events AS (
    ${webhookOutboxInsert('installation.invalidated', 'SELECT app_id, id FROM invalidated')}
  )`;

const counted = `counted AS (
    SELECT notification_id,
           count(*) FILTER (WHERE status = :accepted::text)::int AS accepted,
           count(*) FILTER (WHERE status = :failed::text)::int AS failed,
           count(*) FILTER (WHERE status = :skipped::text)::int AS skipped
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

// Outcomes, invalidations, counters and webhook events (docs/api.md#webhooks) in one statement; only "sending" rows move, so a repeat changes nothing.
// Its plan probes the primary key once per outcome (docs/decisions/0002-outcomes-probe-the-primary-key.md).
const RECORD_OUTCOMES = compile(`
  WITH ${outcome}, ${recorded}, ${receipts}, ${unclaimed}, ${perMinute}, ${invalidated}, ${invalidatedEvents}, ${counted}, ${finished}, ${completedEvents}
  SELECT id, completed FROM finished`);

export const RECORD_OUTCOMES_SQL = RECORD_OUTCOMES.text;

/** Uuids or status words as an array literal (they need no quoting); not for free text or empty strings. */
export const plainArray = (values: readonly string[]): string => `{${values.join(',')}}`;

export function recordOutcomesParams(records: readonly DeliveryRecord[]): unknown[] {
  const invalidations = records.flatMap((r) => (r.invalidation ? [r.invalidation] : []));
  const [startedFrom, startedTo] = startedSpan(records.map((r) => r.notificationStartedAt));
  return valuesOf(RECORD_OUTCOMES, {
    notification_ids: plainArray(records.map((r) => r.notificationId)),
    installation_ids: plainArray(records.map((r) => r.installationId)),
    statuses: plainArray(records.map((r) => r.outcome.status)),
    reasons: records.map((r) => r.outcome.reason?.slice(0, 255) ?? null),
    next_attempts: records.map((r) => r.outcome.nextAttemptAt),
    provider_message_ids: records.map((r) => r.outcome.providerMessageId?.slice(0, 255) ?? null),
    invalid_ids: invalidations.map((i) => i.installationId),
    invalid_reasons: invalidations.map((i) => i.reason.slice(0, 255)),
    invalid_tokens: invalidations.map((i) => i.token),
    started_from: startedFrom,
    started_to: startedTo,
    sending: 'sending' satisfies DeliveryStatus,
    accepted: 'accepted' satisfies DeliveryStatus,
    failed: 'failed' satisfies DeliveryStatus,
    skipped: 'skipped' satisfies DeliveryStatus,
    marketing_ids: [...new Set(records.flatMap((r) => (r.marketing ? [r.notificationId] : [])))],
  });
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

/** The worker's delivery rows: claiming a batch, recording outcomes with the invalidations and statistics they cause, and completing notifications. */
@Injectable()
@SqlFile('deliveries.repository.sql')
export class DeliveriesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Due rows of the batch, pending → sending; `reclaim` also takes back rows already "sending". */
  @GenerateSql({ params: [ID, AT, 0, false] })
  async claim(
    notificationId: string,
    startedAt: Date,
    batch: number,
    reclaim: boolean,
    badge: BadgeChange = NO_BADGE_CHANGE,
    startType: string | null = null,
    widgets = false,
    personalize = false,
  ): Promise<ClaimedRow[]> {
    const { rows } = await preparedQuery<ClaimedRow>(
      this.db,
      'deliveries_claim',
      CLAIM_SQL,
      claimParams(notificationId, startedAt, batch, reclaim, badge, startType, widgets, personalize),
    );
    return rows;
  }

  /** Writes outcomes (RECORD_OUTCOMES_SQL); answers the notifications it completed (docs/decisions/0001-prepared-hot-statements.md). */
  @GenerateSql({
    params: [[{ notificationId: ID, notificationStartedAt: AT, installationId: OTHER_ID, outcome: { status: 'accepted', reason: null, nextAttemptAt: null } }]],
  })
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
  @GenerateSql({ params: [ID] })
  async content(notificationId: string): Promise<NotificationContentRow | undefined> {
    const [row] = await this.db.query<NotificationContentRow[]>(
      `SELECT id, app_id, processing_started_at, title, body, image_url, action_url, data, options, localizations, template, variables, variants
       FROM notifications WHERE id = $1`,
      [notificationId],
    );
    return row;
  }

  /** Batches of the notification that still have rows to send, and when the last of them is due (null: now); not those held for an A/B test's winner. */
  @GenerateSql({ params: [ID] })
  async pendingBatches(notificationId: string): Promise<{ batch: number; due: Date | null }[]> {
    return this.db.query(
      `SELECT batch, max(next_attempt_at) AS due FROM deliveries d
       WHERE d.notification_id = $1 AND ${ownPartition('d', '$1')} AND d.status = ANY($2::text[])
         AND d.next_attempt_at IS DISTINCT FROM ${HELD_SQL} GROUP BY batch`,
      [notificationId, STILL_TO_SEND],
    );
  }

  /** Skips a cancelled send's rows of one batch still to send, with the API cancel's statement; nothing if not cancelled. */
  @GenerateSql({ params: [ID, 0] })
  async cancelLeftovers(notificationId: string, batch: number): Promise<void> {
    await this.db.query(CANCEL_ROWS_SQL, cancelRowsParams(notificationId, batch));
  }

  /** Sets completed_at if the notification is complete (common/completion-condition.ts); true when this did. */
  @GenerateSql({ params: [ID] })
  async completeIfDone(notificationId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(COMPLETE_ONE_SQL, [notificationId]);
    return rows.length > 0;
  }

  /** Sets completed_at on every complete notification that lacks it; their ids. */
  @GenerateSql({ params: [] })
  async completeFinished(): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(COMPLETE_ALL_SQL);
    return rows.map((row) => row.id);
  }
}
