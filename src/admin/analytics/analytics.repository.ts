import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { compile, valuesOf } from '../../common/sql/named';
import type { Platform } from '../../common/platform';
import { AT, ID, OTHER_ID } from '../../queries/fixtures';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';

export interface PlatformFunnelRow {
  platform: Platform;
  deliveries: number;
  accepted: number;
  failed: number;
  skipped: number;
  received: number;
  displayed: number;
  opened: number;
}

export interface InstallationDayRow {
  day: string;
  platform: Platform;
  permission: string;
  installations: number;
}

export interface SendDayRow {
  day: string;
  sends: number;
  accepted: number;
  failed: number;
  skipped: number;
  opened: number;
}

export interface CategoryRow {
  category: string;
  sends: number;
  accepted: number;
  opened: number;
}

/** A send's deliveries of its own start, by platform, with whether each was received, displayed, opened. */
const FUNNEL = compile(`WITH n AS (
    SELECT id, processing_started_at FROM notifications WHERE id = :notification_id AND app_id = :app_id
  ), d AS (
    SELECT d.installation_id, d.platform, d.status FROM deliveries d, n
    WHERE d.notification_id = n.id AND d.notification_started_at = n.processing_started_at
  ), e AS (
    SELECT e.installation_id, bool_or(e.type = 'received') AS received, bool_or(e.type = 'displayed') AS displayed, bool_or(e.type = 'opened') AS opened
    FROM notification_events e, n
    WHERE e.notification_id = n.id AND e.notification_started_at = n.processing_started_at
    GROUP BY e.installation_id
  )
  SELECT d.platform, count(*)::int AS deliveries,
    count(*) FILTER (WHERE d.status = 'accepted')::int AS accepted,
    count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
    count(*) FILTER (WHERE d.status = 'skipped')::int AS skipped,
    count(*) FILTER (WHERE e.received OR e.displayed OR e.opened)::int AS received,
    count(*) FILTER (WHERE e.displayed OR e.opened)::int AS displayed,
    count(*) FILTER (WHERE e.opened)::int AS opened
  FROM d LEFT JOIN e ON e.installation_id = d.installation_id
  GROUP BY d.platform ORDER BY d.platform`);

/** Not a dry run: those reach no device and would count for nothing. */
const SENT = `app_id = :app_id AND created_at >= :since AND NOT COALESCE((options ->> 'dry_run')::boolean, false)`;

const SEND_DAYS = compile(`SELECT to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, count(*)::int AS sends,
    sum(stat_accepted)::int AS accepted, sum(stat_failed)::int AS failed, sum(stat_skipped)::int AS skipped, sum(stat_opened)::int AS opened
  FROM notifications WHERE ${SENT}
  GROUP BY 1 ORDER BY 1`);

const CATEGORIES = compile(`SELECT COALESCE(options ->> 'category', 'transactional') AS category, count(*)::int AS sends,
    sum(stat_accepted)::int AS accepted, sum(stat_opened)::int AS opened
  FROM notifications WHERE ${SENT}
  GROUP BY 1 ORDER BY 1`);

const INSTALLATION_DAYS = compile(`SELECT to_char(day, 'YYYY-MM-DD') AS day, platform, permission, installations
  FROM installation_days WHERE app_id = :app_id AND day >= :since::date
  ORDER BY day, platform, permission`);

/**
 * The dashboard's analytics (docs/api.md#analytics): a send's funnel by platform from its own
 * deliveries and events (one partition each), an app's days from its notifications' counters (the
 * (app_id, created_at) index) and from `installation_days`, which the worker fills.
 */
@Injectable()
@SqlFile('analytics.repository.sql')
export class AnalyticsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql({ params: [OTHER_ID, ID] })
  platformFunnel(appId: string, notificationId: string): Promise<PlatformFunnelRow[]> {
    return this.db.query(FUNNEL.text, valuesOf(FUNNEL, { app_id: appId, notification_id: notificationId }));
  }

  @GenerateSql({ params: [OTHER_ID, AT] })
  sendDays(appId: string, since: Date): Promise<SendDayRow[]> {
    return this.db.query(SEND_DAYS.text, valuesOf(SEND_DAYS, { app_id: appId, since }));
  }

  @GenerateSql({ params: [OTHER_ID, AT] })
  categories(appId: string, since: Date): Promise<CategoryRow[]> {
    return this.db.query(CATEGORIES.text, valuesOf(CATEGORIES, { app_id: appId, since }));
  }

  @GenerateSql({ params: [OTHER_ID, AT] })
  installationDays(appId: string, since: Date): Promise<InstallationDayRow[]> {
    return this.db.query(INSTALLATION_DAYS.text, valuesOf(INSTALLATION_DAYS, { app_id: appId, since }));
  }
}
