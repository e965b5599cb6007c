import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DeliveryStatus } from '../../common/vocabulary';
import type { Platform } from '../../common/platform';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';
import { AT, ID, OTHER_ID } from '../../queries/fixtures';

export interface TraceRow {
  position: string;
  /** The client's installation id (kept on the row when the installation is deleted). */
  installation_id: string;
  user_id: string | null;
  platform: Platform;
  status: DeliveryStatus;
  reason: string | null;
  attempts: number;
  /** The provider's id of the accepted message (docs/api.md#provider-message-ids). */
  provider_message_id: string | null;
  scheduled_for: Date | null;
  /** Its variant's key (docs/api.md#variants); null for a send without, and for a row held for an A/B test's winner. */
  variant: string | null;
  /** When a row still to send is due: its scheduled time, or its next retry (null while held for an A/B test's winner). */
  next_attempt_at: Date | null;
  updated_at: Date;
  received_at: Date | null;
  displayed_at: Date | null;
  opened_at: Date | null;
  /** The web button whose click reported `opened` (docs/api.md#web-action-buttons), else null. */
  opened_action: string | null;
  /** The installation's device.locale now, which picks its localized content (docs/api.md#localization). */
  locale: string | null;
  matches: boolean;
  scanned: number;
}

export interface TraceQuery {
  notificationId: string;
  /** processing_started_at as text: the partition key with its microseconds, which a Date would drop. */
  startedAt: string;
  after: string | null;
  status: DeliveryStatus | null;
  /** Only rows with this reason (the dashboard's filter), in the same bounded scan; null: any. */
  reason?: string | null;
  scanLimit: number;
  rows: number;
}

// The trace (docs/api.md#delivery-trace): a page is a range scan of the primary key from the cursor, in one partition; no sort, no OFFSET.
export const TRACE_PAGE_SQL = `
  SELECT p.installation_id AS position, i.installation_id, p.user_id, p.platform, p.status, p.reason, p.attempts, p.provider_message_id,
         p.scheduled_for, p.next_attempt_at, p.variant, p.updated_at, ev.received_at, ev.displayed_at, ev.opened_at, ev.opened_action, p.matches, p.scanned::int AS scanned,
         i.device ->> 'locale' AS locale
  FROM (
    SELECT s.*, (($4::text IS NULL OR s.status = $4::text) AND ($7::text IS NULL OR s.reason = $7::text)) AS matches
    FROM (
      SELECT d.*, row_number() OVER (ORDER BY d.installation_id) AS scanned
      FROM (
        SELECT d.installation_id, d.user_id, d.platform, d.status, d.reason, d.attempts, d.provider_message_id, d.scheduled_for,
          NULLIF(d.next_attempt_at, 'infinity') AS next_attempt_at, d.updated_at,
          CASE WHEN d.variant IS NOT NULL THEN (SELECT n.variants -> d.variant::int ->> 'key' FROM notifications n WHERE n.id = $1) END AS variant
        FROM deliveries d
        WHERE d.notification_id = $1 AND d.notification_started_at = $2::timestamptz AND d.installation_id > $3::uuid
        ORDER BY d.installation_id
        LIMIT $5
      ) d
    ) s
    WHERE (($4::text IS NULL OR s.status = $4::text) AND ($7::text IS NULL OR s.reason = $7::text)) OR s.scanned = $5
    ORDER BY s.installation_id
    LIMIT $6
  ) p
  JOIN installations i ON i.id = p.installation_id
  LEFT JOIN LATERAL (
    SELECT max(e.occurred_at) FILTER (WHERE e.type = 'received') AS received_at,
           max(e.occurred_at) FILTER (WHERE e.type = 'displayed') AS displayed_at,
           max(e.occurred_at) FILTER (WHERE e.type = 'opened') AS opened_at,
           max(e.action) FILTER (WHERE e.type = 'opened') AS opened_action
    FROM notification_events e
    WHERE e.notification_id = $1 AND e.notification_started_at = $2::timestamptz AND e.installation_id = p.installation_id
  ) ev ON true
  ORDER BY p.installation_id`;

/** Sorts before every row id (installations' ids are random UUIDs, never this one): the first page's start. */
const BEFORE_ALL = '00000000-0000-0000-0000-000000000000';

export function traceParams(q: TraceQuery): unknown[] {
  return [q.notificationId, q.startedAt, q.after ?? BEFORE_ALL, q.status, q.scanLimit, q.rows, q.reason ?? null];
}

@Injectable()
@SqlFile('delivery-trace.repository.sql')
export class DeliveryTraceRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The app's notification: when its fan-out began, as text for TraceQuery.startedAt (null: not yet); undefined when the app has no such notification. */
  @GenerateSql({ params: [ID, OTHER_ID] })
  async notification(appId: string, id: string): Promise<{ started_at: string | null } | undefined> {
    const [row]: { started_at: string | null }[] = await this.db.query(
      `SELECT processing_started_at::text AS started_at FROM notifications WHERE id = $1 AND app_id = $2`,
      [id, appId],
    );
    return row;
  }

  @GenerateSql({ params: [{ notificationId: ID, startedAt: AT.toISOString(), after: null, status: null, scanLimit: 10_000, rows: 100 }] })
  page(q: TraceQuery): Promise<TraceRow[]> {
    return this.db.query(TRACE_PAGE_SQL, traceParams(q));
  }
}
