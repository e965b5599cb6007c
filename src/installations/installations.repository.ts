import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FilterNode } from '../common/audience-filter';
import { compileFilter } from '../common/audience-sql';
import { preparedQuery } from '../common/prepared-query';
import { boundedTransaction } from '../common/sql/bounded';
import { EnvironmentVariables } from '../config/env';
import { Platform, WebPushSubscription } from '../common/platform';
import { MAX_PROPERTIES, PropertyValue } from '../common/validation/domain-rules';
import { Device, Permission } from './installation.entity';
import { AT, FILTER, ID } from '../queries/fixtures';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/** An `installations` row as PostgreSQL returns it. */
export interface InstallationRow {
  id: string;
  app_id: string;
  installation_id: string;
  platform: Platform;
  push_token: string | null;
  web_push_subscription: WebPushSubscription | null;
  device: Partial<Device>;
  user_id: string | null;
  permission: Permission;
  registered_at: Date;
  last_seen_at: Date;
  identifier_updated_at: Date | null;
  permission_updated_at: Date | null;
  invalidated_at: Date | null;
  invalid_reason: string | null;
  deleted_at: Date | null;
  tags: string[];
  badge: number;
  properties: Record<string, PropertyValue>;
  /** Push-to-start tokens by ActivityAttributes type (docs/api.md#live-activity-start-tokens); write-only. */
  live_activity_start_tokens: Record<string, string>;
  /** iOS: the WidgetKit push token (docs/api.md#widgets); write-only. */
  widget_push_token: string | null;
}

/** Every column of the `installations` table, for statements that must not say `*` (see preparedQuery). */
export const INSTALLATION_COLUMNS = `id, app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
  permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, deleted_at, tags, properties,
  live_activity_start_tokens, widget_push_token`;

/** The stored badge count of the installation row `alias` (migration InstallationBadges); null without a row. */
const storedBadge = (alias: string) => `(SELECT b.badge FROM installation_badges b WHERE b.installation_id = ${alias}.id)`;
const badgeOf = (alias: string) => `COALESCE(${storedBadge(alias)}, 0) AS badge`;

const setBadge = (rows: string, badge: string) => `badge_set AS (
    INSERT INTO installation_badges (installation_id, badge) SELECT id, ${badge}::int FROM ${rows} WHERE ${badge}::int IS NOT NULL
    ON CONFLICT (installation_id) DO UPDATE SET badge = EXCLUDED.badge
    RETURNING installation_id, badge
  )`;

/** Properties after a change (docs/api.md#properties): $11 replaces ($12) or merges into them; its nulls remove keys (none is stored). */
const MERGED_PROPERTIES = `CASE WHEN $11::jsonb IS NULL THEN properties
      WHEN $12::boolean THEN jsonb_strip_nulls($11::jsonb) ELSE jsonb_strip_nulls(properties || $11::jsonb) END`;

/**
 * A PATCH in one statement: timestamps move on real change (docs/api.md#update-installation), a new token revives the row; no row past $13 properties.
 * A push token replaces a subscription and the other way round: an Android installation switching between FCM and UnifiedPush (docs/api.md#push-provider).
 */
const NEW_PUSH_TOKEN = `CASE WHEN $8::jsonb IS NOT NULL THEN NULL ELSE COALESCE($7::text, push_token) END`;
const NEW_SUBSCRIPTION = `CASE WHEN $7::text IS NOT NULL THEN NULL ELSE COALESCE($8::jsonb, web_push_subscription) END`;
const UPDATE_SQL = `
  WITH updated AS (UPDATE installations SET
    user_id = CASE WHEN $3::boolean THEN $4::varchar ELSE user_id END,
    identifier_updated_at = CASE WHEN $3::boolean AND user_id IS DISTINCT FROM $4::varchar THEN now() ELSE identifier_updated_at END,
    permission = COALESCE($5::varchar, permission),
    permission_updated_at = CASE WHEN permission IS DISTINCT FROM COALESCE($5::varchar, permission) THEN now() ELSE permission_updated_at END,
    device = CASE WHEN $6::jsonb IS NULL THEN device ELSE device || $6::jsonb END,
    push_token = ${NEW_PUSH_TOKEN},
    web_push_subscription = ${NEW_SUBSCRIPTION},
    invalidated_at = CASE WHEN push_token IS DISTINCT FROM ${NEW_PUSH_TOKEN}
      OR web_push_subscription IS DISTINCT FROM ${NEW_SUBSCRIPTION} THEN NULL ELSE invalidated_at END,
    invalid_reason = CASE WHEN push_token IS DISTINCT FROM ${NEW_PUSH_TOKEN}
      OR web_push_subscription IS DISTINCT FROM ${NEW_SUBSCRIPTION} THEN NULL ELSE invalid_reason END,
    tags = COALESCE($9::text[], tags),
    properties = ${MERGED_PROPERTIES},
    live_activity_start_tokens = COALESCE($14::jsonb, live_activity_start_tokens),
    widget_push_token = COALESCE($15::varchar, widget_push_token),
    last_seen_at = now()
  WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL
    AND ($11::jsonb IS NULL OR (SELECT count(*) FROM jsonb_object_keys(${MERGED_PROPERTIES})) <= $13)
  RETURNING ${INSTALLATION_COLUMNS}),
  ${setBadge('updated', '$10')}
  SELECT u.*, COALESCE(s.badge, ${storedBadge('u')}, 0) AS badge
  FROM updated u LEFT JOIN badge_set s ON s.installation_id = u.id`;

/** Creates the row, or re-creates a deleted one as if new: its badge count is the one given or 0 (a deleted row's went with it). */
const CREATE_SQL = `
  WITH created AS (INSERT INTO installations AS i (app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
    permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, tags, properties, live_activity_start_tokens, widget_push_token)
  VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::varchar, COALESCE($8::varchar, 'unknown'), now(), now(),
    CASE WHEN $7::varchar IS NOT NULL THEN now() END, CASE WHEN $8::varchar IS NOT NULL THEN now() END, $9::text[],
    jsonb_strip_nulls($11::jsonb), $12::jsonb, $13::varchar)
  ON CONFLICT (app_id, installation_id) DO UPDATE SET
    platform = EXCLUDED.platform, push_token = EXCLUDED.push_token, web_push_subscription = EXCLUDED.web_push_subscription,
    device = EXCLUDED.device, user_id = EXCLUDED.user_id, permission = EXCLUDED.permission,
    registered_at = EXCLUDED.registered_at, last_seen_at = EXCLUDED.last_seen_at,
    identifier_updated_at = EXCLUDED.identifier_updated_at, permission_updated_at = EXCLUDED.permission_updated_at,
    invalidated_at = NULL, invalid_reason = NULL, deleted_at = NULL, tags = EXCLUDED.tags,
    properties = EXCLUDED.properties, live_activity_start_tokens = EXCLUDED.live_activity_start_tokens, widget_push_token = EXCLUDED.widget_push_token
  WHERE i.deleted_at IS NOT NULL
  RETURNING ${INSTALLATION_COLUMNS}),
  ${setBadge('created', '$10')}
  SELECT c.*, COALESCE($10::int, 0) AS badge FROM created c`;

/** Values of a PATCH or re-registration; null leaves a column as it is. JSON columns come serialised. */
export interface InstallationChanges {
  /** Whether user_id is being set (to `userId`, which may be null). */
  setUserId: boolean;
  userId: string | null;
  permission: string | null;
  device: string | null;
  pushToken: string | null;
  webPushSubscription: string | null;
  /** The whole new set (sorted, without duplicates), or null to keep it. */
  tags: string[] | null;
  /** The iOS badge count (docs/api.md#badge-arithmetic), or null to keep it. */
  badge: number | null;
  /** JSON text of the properties given (null values remove), or null to keep them. */
  properties: string | null;
  /** Whether `properties` replaces the set (PUT) rather than being merged into it (PATCH). */
  replaceProperties: boolean;
  liveActivityStartTokens: string | null;
  /** The WidgetKit push token, lower case, or null to keep it. */
  widgetPushToken: string | null;
}

export interface NewInstallation {
  platform: Platform;
  pushToken: string | null;
  webPushSubscription: string | null;
  device: string;
  userId: string | null;
  permission: string | null;
  tags: string[];
  badge: number | null;
  properties: string;
  liveActivityStartTokens: string;
  widgetPushToken: string | null;
}

/** An installation's changes that change nothing. */
const INSTALLATION_CHANGES: InstallationChanges = {
  setUserId: false,
  userId: null,
  permission: null,
  device: null,
  pushToken: null,
  webPushSubscription: null,
  tags: null,
  badge: null,
  properties: null,
  replaceProperties: false,
  liveActivityStartTokens: null,
  widgetPushToken: null,
};

const NEW_INSTALLATION: NewInstallation = {
  platform: 'ios',
  pushToken: 'token',
  webPushSubscription: null,
  device: '{}',
  userId: null,
  permission: 'unknown',
  tags: [],
  badge: null,
  properties: '{}',
  liveActivityStartTokens: '{}',
  widgetPushToken: null,
};

/** The `installations` table, as the API writes and reads it (delivery reads it in its own statements). */
@Injectable()
@SqlFile('installations.repository.sql', (db) => new InstallationsRepository(db, { AUDIENCE_STATEMENT_TIMEOUT_MS: 10000 } as EnvironmentVariables))
export class InstallationsRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: EnvironmentVariables,
  ) {}

  @GenerateSql({ params: [ID, 'device-1'] })
  async find(appId: string, installationId: string): Promise<InstallationRow | undefined> {
    const [row]: InstallationRow[] = await this.db.query(
      `SELECT ${INSTALLATION_COLUMNS}, ${badgeOf('installations')} FROM installations WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL`,
      [appId, installationId],
    );
    return row;
  }

  /** The live installations of a user, most recently seen first (the app_id, user_id index). */
  @GenerateSql({ params: [ID, 'user-1', 20] })
  findByUser(appId: string, userId: string, limit: number): Promise<InstallationRow[]> {
    return this.db.query(
      `SELECT ${INSTALLATION_COLUMNS}, ${badgeOf('installations')} FROM installations
       WHERE app_id = $1 AND user_id = $2 AND deleted_at IS NULL ORDER BY last_seen_at DESC LIMIT $3`,
      [appId, userId, limit],
    );
  }

  /** The dashboard's page of live installations after `after` in installation_id order, matching `filter` (docs/api.md#audience-filters). */
  @GenerateSql({ params: [ID, null, '', 50, AT] })
  @GenerateSql({ name: 'filter', params: [ID, FILTER, 'device-1', 50, AT] })
  browse(appId: string, filter: FilterNode | null, after: string, limit: number, now: Date): Promise<InstallationRow[]> {
    const matching = filter ? compileFilter(filter, 4, now) : { sql: 'TRUE', params: [] };
    // A filter is evaluated under the count's time limit (AudienceTimedOutError).
    if (filter)
      return boundedTransaction(this.db, this.config.AUDIENCE_STATEMENT_TIMEOUT_MS, undefined, (manager) => browsePage(manager, appId, after, limit, matching));
    return browsePage(this.db, appId, after, limit, matching);
  }

  /** Live installations per app and platform (the dashboard's app list): reads every live row, fine for a page, not for a hot path. */
  @GenerateSql({ params: [] })
  countByApp(): Promise<{ app_id: string; platform: Platform; count: number }[]> {
    return this.db.query(`SELECT app_id, platform, count(*)::int AS count FROM installations WHERE deleted_at IS NULL GROUP BY app_id, platform`);
  }

  /** A live installation's platform, and whether it holds a subscription (its provider: pushProviderOf); null when none. */
  @GenerateSql({ params: [ID, 'device-1'] })
  async channelOf(appId: string, installationId: string): Promise<{ platform: Platform; subscribed: boolean } | null> {
    const [row] = await this.db.query<{ platform: Platform; subscribed: boolean }[]>(
      `SELECT platform, web_push_subscription IS NOT NULL AS subscribed FROM installations WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL`,
      [appId, installationId],
    );
    return row ?? null;
  }

  /** UPDATE_SQL as a prepared statement: this is the whole of a PATCH's own database work. Undefined when no live row (or too many properties). */
  @GenerateSql({ params: [ID, 'device-1', INSTALLATION_CHANGES] })
  async update(appId: string, installationId: string, changes: InstallationChanges): Promise<InstallationRow | undefined> {
    const { rows } = await preparedQuery<InstallationRow>(this.db, 'installations_update', UPDATE_SQL, [
      appId,
      installationId,
      changes.setUserId,
      changes.userId,
      changes.permission,
      changes.device,
      changes.pushToken,
      changes.webPushSubscription,
      changes.tags,
      changes.badge,
      changes.properties,
      changes.replaceProperties,
      MAX_PROPERTIES,
      changes.liveActivityStartTokens,
      changes.widgetPushToken,
    ]);
    return rows[0];
  }

  /** CREATE_SQL; undefined when a live row appeared in between. */
  @GenerateSql({ params: [ID, 'device-1', NEW_INSTALLATION] })
  async create(appId: string, installationId: string, values: NewInstallation): Promise<InstallationRow | undefined> {
    const [row]: InstallationRow[] = await this.db.query(CREATE_SQL, [
      appId,
      installationId,
      values.platform,
      values.pushToken,
      values.webPushSubscription,
      values.device,
      values.userId,
      values.permission,
      values.tags,
      values.badge,
      values.properties,
      values.liveActivityStartTokens,
      values.widgetPushToken,
    ]);
    return row;
  }

  /** The row stays for the deliveries and events that refer to it; its personal data and badge count go. False when no live row. */
  @GenerateSql({ params: [ID, 'device-1'] })
  async softDelete(appId: string, installationId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `WITH deleted AS (UPDATE installations SET deleted_at = now(), push_token = NULL, web_push_subscription = NULL, user_id = NULL,
           device = '{}'::jsonb, tags = '{}', properties = '{}'::jsonb, live_activity_start_tokens = '{}'::jsonb,
           widget_push_token = NULL
         WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL
         RETURNING id),
       uncounted AS (DELETE FROM installation_badges b USING deleted d WHERE b.installation_id = d.id)
       SELECT id FROM deleted`,
      [appId, installationId],
    );
    return rows.length > 0;
  }
}

function browsePage(
  db: Pick<DataSource, 'query'>,
  appId: string,
  after: string,
  limit: number,
  matching: { sql: string; params: unknown[] },
): Promise<InstallationRow[]> {
  return db.query(
    `SELECT ${INSTALLATION_COLUMNS}, ${badgeOf('i')} FROM installations i
       WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.installation_id > $2 AND ${matching.sql}
       ORDER BY i.installation_id LIMIT $3`,
    [appId, after, limit, ...matching.params],
  );
}
