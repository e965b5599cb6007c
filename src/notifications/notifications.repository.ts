import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CANCEL_ROWS_SQL, cancelRowsParams } from '../common/cancel-statement';
import { preparedQuery } from '../common/prepared-query';
import { retryingDeadlocks } from '../common/pg-errors';
import { insertValues, type NewNotification, NOTIFICATION_ROW_COLUMNS, type NotificationRow } from '../common/notification';
import { compile, valuesOf } from '../common/sql/named';
import { DeliveryStatus } from '../common/vocabulary';
import { webhookOutboxInsert } from '../common/webhook-events';
import { variantStatisticsSql } from '../common/variant-statistics';
import type { EventType } from './events/notification-event.entity';
import { GenerateSql, SqlFile } from '../queries/generate-sql';
import { AT, ID, NOTIFICATION, OTHER_ID } from '../queries/fixtures';

export type { NewNotification, NotificationRow };

const NOTIFICATION_COLUMNS = NOTIFICATION_ROW_COLUMNS;

/** How often a cancel that met a deadlock runs (NotificationsRepository.cancel). */
const CANCEL_ATTEMPTS = 5;

const FIND_SQL = `SELECT ${NOTIFICATION_COLUMNS}, ${variantStatisticsSql('n')} FROM notifications n WHERE app_id = $1 AND id = $2`;

/** A send's row (NewNotification, by column), and under an Idempotency-Key the key's link to it (docs/api.md#idempotency). */
const INSERT = `INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users,
         recipient_kind, installation_ids, tags, send_at, localizations, recipient_filter, template, variables, variants, ab_phase)
       VALUES (:id::uuid, :app_id::uuid, :title::text, :body::text, :image_url::text, :action_url::text, :data::jsonb, :options::jsonb,
         :user_ids::text[], :target_users::int, :recipient_kind::text, :installation_ids::text[], :tags::text[], :send_at::timestamptz,
         :localizations::json, :recipient_filter::jsonb, :template::jsonb, :variables::jsonb, :variants::jsonb, :ab_phase::text)
       RETURNING ${NOTIFICATION_COLUMNS}`;
const INSERT_SQL = compile(INSERT);
const INSERT_FOR_KEY_SQL = compile(`WITH linked AS (
    UPDATE idempotency_keys SET notification_id = :id::uuid WHERE app_id = :app_id::uuid AND key = :idempotency_key::text
  )
  ${INSERT}`);

/** Which counter each event type moves; also the only column names the event statement interpolates. */
const EVENT_COUNTERS: Record<EventType, string> = { received: 'stat_received', displayed: 'stat_displayed', opened: 'stat_opened' };

/** What recording one event found and did. */
export interface EventResult {
  found: boolean;
  targeted: boolean;
  /** Its delivery is accepted or under way, so its events count (docs/api.md#reads-and-events). */
  eligible: boolean;
  status: DeliveryStatus | null;
  reason: string | null;
  counted: boolean;
}

/** The API's side of `notifications` and `notification_events` (docs/architecture.md, "Tables and their writers"). */
@Injectable()
@SqlFile('notifications.repository.sql')
export class NotificationsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Inserts the notification in one statement that also links a claimed key (docs/decisions/0014-idempotency-key-linked-then-answered.md). */
  @GenerateSql({ params: [NOTIFICATION] })
  @GenerateSql({ name: 'under a key', params: [NOTIFICATION, 'key'] })
  async insert(notification: NewNotification, key?: string): Promise<NotificationRow> {
    // node-postgres sends a JS array as a PostgreSQL array: the jsonb array of variants goes as JSON text.
    const values = { ...insertValues(notification), variants: notification.variants === null ? null : JSON.stringify(notification.variants) };
    const { rows } =
      key === undefined
        ? await preparedQuery<NotificationRow>(this.db, 'notifications_insert', INSERT_SQL.text, valuesOf(INSERT_SQL, values))
        : await preparedQuery<NotificationRow>(
            this.db,
            'notifications_insert_for_key',
            INSERT_FOR_KEY_SQL.text,
            valuesOf(INSERT_FOR_KEY_SQL, { ...values, idempotency_key: key }),
          );
    return rows[0];
  }

  @GenerateSql({ params: [OTHER_ID, ID] })
  async find(appId: string, id: string): Promise<NotificationRow | undefined> {
    const [row]: NotificationRow[] = await this.db.query(FIND_SQL, [appId, id]);
    return row;
  }

  /** Cancels an unfinished notification (docs/api.md#scheduling) and skips its unattempted rows; undefined if not this app's or done. */
  @GenerateSql({ params: [OTHER_ID, ID], answers: [[{ id: ID }]] })
  async cancel(appId: string, id: string): Promise<NotificationRow | undefined> {
    // Lock order is the notification, then its rows, the reverse of the outcome write's: a deadlock runs again.
    return retryingDeadlocks(() => this.cancelOnce(appId, id), CANCEL_ATTEMPTS);
  }

  private cancelOnce(appId: string, id: string): Promise<NotificationRow | undefined> {
    return this.db.transaction(async (manager) => {
      const [marked]: { id: string }[] = await manager.query(
        `WITH marked AS (
           UPDATE notifications SET canceled_at = now()
           WHERE id = $1 AND app_id = $2 AND completed_at IS NULL AND canceled_at IS NULL RETURNING app_id, id
         ), canceled_events AS (
           ${webhookOutboxInsert('notification.canceled', 'SELECT app_id, id FROM marked')}
         )
         SELECT id FROM marked`,
        [id, appId],
      );
      if (!marked) return undefined;
      await manager.query(CANCEL_ROWS_SQL, cancelRowsParams(id, null));
      const [row]: NotificationRow[] = await manager.query(FIND_SQL, [appId, id]);
      return row;
    });
  }

  /** Newest first, after the (created_at, id) position `after` when given, and created before `createdBefore` when given (the dashboard's jump to a date). */
  @GenerateSql({ params: [OTHER_ID, 50, null, 'sale'] })
  list(
    appId: string,
    limit: number,
    after: { createdAtMicros: string; id: string } | null,
    titleContains: string | null = null,
    createdBefore: Date | null = null,
  ): Promise<(NotificationRow & { created_at_micros: string })[]> {
    // The title filter walks the (app_id, created_at, id) index newest first until it has a page.
    return this.db.query(
      `SELECT ${NOTIFICATION_COLUMNS}, ${variantStatisticsSql('n')}, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_at_micros FROM notifications n
       WHERE app_id = $1 AND ($2::bigint IS NULL OR (created_at, id) < ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::uuid))
         AND ($5::text IS NULL OR strpos(lower(title), lower($5::text)) > 0)
         AND ($6::timestamptz IS NULL OR created_at < $6::timestamptz)
       ORDER BY created_at DESC, id DESC
       LIMIT $4`,
      [appId, after?.createdAtMicros ?? null, after?.id ?? null, limit, titleContains, createdBefore],
    );
  }

  /** How many notifications each app created since `since` (the notifications_app_id_created_at index). */
  @GenerateSql({ params: [AT] })
  countSince(since: Date): Promise<{ app_id: string; count: number }[]> {
    return this.db.query(`SELECT app_id, count(*)::int AS count FROM notifications WHERE created_at >= $1 GROUP BY app_id`, [since]);
  }

  /** Of the app's `scan` newest, those with a row for the installation: a key probe each, as `deliveries` has no index by installation. */
  @GenerateSql({ params: [OTHER_ID, ID, 200] })
  lastForInstallation(
    appId: string,
    installationId: string,
    scan: number,
  ): Promise<(NotificationRow & { delivery_status: string; delivery_reason: string | null; delivery_updated_at: Date })[]> {
    return this.db.query(
      `SELECT ${NOTIFICATION_COLUMNS.replace(/(\w+)/g, 'n.$1')}, d.status AS delivery_status, d.reason AS delivery_reason,
              d.updated_at AS delivery_updated_at
       FROM (SELECT * FROM notifications WHERE app_id = $1 ORDER BY created_at DESC, id DESC LIMIT $3) n
       JOIN deliveries d ON d.notification_id = n.id AND d.installation_id = $2 AND d.notification_started_at = n.processing_started_at
       ORDER BY n.created_at DESC, n.id DESC`,
      [appId, installationId, scan],
    );
  }

  /** Records an event once per (notification, installation, type) for a delivery accepted or under way (docs/api.md#reads-and-events). */
  @GenerateSql({ name: 'opened', params: [OTHER_ID, ID, 'device-1', 'opened', AT], answers: [[{}]] })
  async recordEvent(
    appId: string,
    notificationId: string,
    installationId: string,
    type: EventType,
    occurredAt: Date,
    action: string | null = null,
  ): Promise<EventResult> {
    const counter = EVENT_COUNTERS[type];
    const [result]: EventResult[] = await this.db.query(
      `WITH notification AS (
         SELECT id, processing_started_at FROM notifications WHERE id = $1 AND app_id = $2
       ), target AS (
         SELECT d.installation_id, d.notification_started_at, d.status, d.reason,
                d.status = ANY($6::text[]) OR (d.status = $7::text AND d.attempts > 0) AS eligible
         FROM deliveries d
         JOIN installations i ON i.id = d.installation_id
         WHERE d.notification_id = (SELECT id FROM notification)
           AND d.notification_started_at = (SELECT processing_started_at FROM notification)
           AND i.app_id = $2 AND i.installation_id = $3
       ), inserted AS (
         INSERT INTO notification_events (notification_id, installation_id, type, notification_started_at, occurred_at, action)
         SELECT $1, installation_id, $4, notification_started_at, $5, $8::varchar FROM target WHERE eligible
         ON CONFLICT DO NOTHING
         RETURNING 1
       ), counted AS (
         UPDATE notifications SET ${counter} = ${counter} + (SELECT count(*) FROM inserted)
         WHERE id = $1 AND EXISTS (SELECT 1 FROM inserted)
         RETURNING 1
       )
       SELECT EXISTS (SELECT 1 FROM notification) AS found, EXISTS (SELECT 1 FROM target) AS targeted,
              EXISTS (SELECT 1 FROM target WHERE eligible) AS eligible,
              (SELECT status FROM target) AS status, (SELECT reason FROM target) AS reason,
              EXISTS (SELECT 1 FROM counted) AS counted`,
      [notificationId, appId, installationId, type, occurredAt, ['accepted', 'sending'] satisfies DeliveryStatus[], 'pending' satisfies DeliveryStatus, action],
    );
    return result;
  }
}
