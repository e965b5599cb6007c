import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Platform, WebPushSubscription } from '../common/platform';
import type { PropertyValue } from '../common/validation/domain-rules';
import type { NewInstallation } from '../installations/installations.repository';
import type { Device, Permission } from '../installations/installation.entity';
import { AT, ID } from '../queries/fixtures';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/** One line to write: the installation's stored form (InstallationsService's newInstallationOf) and its history. */
export interface ImportRow {
  line: number;
  installationId: string;
  values: NewInstallation;
  registeredAt: Date | null;
  lastSeenAt: Date | null;
  identifierUpdatedAt: Date | null;
  permissionUpdatedAt: Date | null;
  invalidatedAt: Date | null;
  invalidReason: string | null;
}

/** What writing a line did; `stored_platform` is set when a live installation of another platform has its id. */
export interface ImportOutcome {
  line: number;
  outcome: 'created' | 'updated' | 'unchanged' | 'platform_differs';
  stored_platform: Platform | null;
}

/** An installation as `pns export` writes it. */
export interface ExportRow {
  installation_id: string;
  platform: Platform;
  push_token: string | null;
  web_push_subscription: WebPushSubscription | null;
  widget_push_token: string | null;
  device: Partial<Device>;
  user_id: string | null;
  permission: Permission;
  tags: string[];
  properties: Record<string, PropertyValue>;
  badge: number;
  live_activity_start_tokens: Record<string, string>;
  registered_at: Date;
  last_seen_at: Date;
  identifier_updated_at: Date | null;
  permission_updated_at: Date | null;
  invalidated_at: Date | null;
  invalid_reason: string | null;
}

const INPUT = `jsonb_to_recordset($2::jsonb) AS r(line int, installation_id varchar, platform varchar, push_token text,
    web_push_subscription jsonb, widget_push_token text, device jsonb, user_id varchar, permission varchar, tags text[], properties jsonb, badge int,
    live_activity_start_tokens jsonb, registered_at timestamptz, last_seen_at timestamptz, identifier_updated_at timestamptz,
    permission_updated_at timestamptz, invalidated_at timestamptz, invalid_reason varchar)`;

/**
 * What a live row's columns become (docs/api.md#import), `n` being the line's values (EXCLUDED in the
 * upsert, the input row before it): the line's; a new token clears the invalidation unless the line gives one.
 */
const tokenChanged = (n: string) => `(i.push_token IS DISTINCT FROM ${n}.push_token OR i.web_push_subscription IS DISTINCT FROM ${n}.web_push_subscription)`;
const liveValues = (n: string): [string, string][] => [
  ['push_token', `${n}.push_token`],
  ['web_push_subscription', `${n}.web_push_subscription`],
  ['device', `${n}.device`],
  ['user_id', `${n}.user_id`],
  ['permission', `${n}.permission`],
  ['tags', `${n}.tags`],
  ['properties', `${n}.properties`],
  ['live_activity_start_tokens', `${n}.live_activity_start_tokens`],
  // A line without a widget token keeps the one the app registered since (no import format but ours carries one).
  ['widget_push_token', `COALESCE(${n}.widget_push_token, i.widget_push_token)`],
  ['invalidated_at', `CASE WHEN ${n}.invalidated_at IS NOT NULL OR ${tokenChanged(n)} THEN ${n}.invalidated_at ELSE i.invalidated_at END`],
  ['invalid_reason', `CASE WHEN ${n}.invalidated_at IS NOT NULL OR ${tokenChanged(n)} THEN ${n}.invalid_reason ELSE i.invalid_reason END`],
];
/** Whether the live row `i` would change under the line's values `n`. */
const differs = (n: string) =>
  `(${liveValues(n)
    .map(([column]) => `i.${column}`)
    .join(', ')}) IS DISTINCT FROM (${liveValues(n)
    .map(([, value]) => value)
    .join(', ')})`;
const HISTORY: [string, string][] = [
  ['registered_at', 'LEAST(i.registered_at, EXCLUDED.registered_at)'],
  ['last_seen_at', 'GREATEST(i.last_seen_at, EXCLUDED.last_seen_at)'],
  ['identifier_updated_at', 'CASE WHEN i.user_id IS DISTINCT FROM EXCLUDED.user_id THEN EXCLUDED.identifier_updated_at ELSE i.identifier_updated_at END'],
  ['permission_updated_at', 'CASE WHEN i.permission IS DISTINCT FROM EXCLUDED.permission THEN EXCLUDED.permission_updated_at ELSE i.permission_updated_at END'],
];
// A deleted row is created anew, as a registration re-creates it (InstallationsRepository.create).
const whenLive = (column: string, value: string) => `${column} = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.${column} ELSE ${value} END`;

/**
 * A batch of lines in one statement (docs/api.md#import): creates the new installations, updates the
 * live ones whose values differ (same platform only), re-creates deleted ones. `before` (the
 * statement's snapshot) leaves out of the upsert a line equal to its live installation, and one of
 * another platform: an upsert would lock their rows (a re-run of 1,000,000 lines then dirtied every
 * page, 3,945 lines/s against 5,036 for the first run); so a re-run writes nothing.
 * Every lookup goes from the batch to the (app_id, installation_id) index through LATERAL ... LIMIT 1,
 * which the planner cannot flatten into a scan of the app's rows: its estimate of a table an import
 * is filling is stale, and that scan per batch grew with the table (110 lines/s at 75,000 rows).
 */
const WRITE_SQL = `
  WITH input AS (
    SELECT r.line, r.installation_id, r.platform, r.push_token, r.web_push_subscription, r.widget_push_token, r.device, r.user_id,
      COALESCE(r.permission, 'unknown') AS permission, r.permission AS given_permission, r.tags, jsonb_strip_nulls(r.properties) AS properties,
      r.badge, r.live_activity_start_tokens, r.registered_at, r.last_seen_at, r.identifier_updated_at, r.permission_updated_at,
      r.invalidated_at, r.invalid_reason
    FROM ${INPUT}
  ),
  before AS (
    SELECT x.installation_id, i.id, i.platform, i.deleted_at IS NULL AS live, i.deleted_at IS NULL AND i.platform = x.platform AND NOT ${differs('x')} AS same
    FROM input x CROSS JOIN LATERAL (
      SELECT id, platform, deleted_at, push_token, web_push_subscription, device, user_id, permission, tags, properties,
        live_activity_start_tokens, widget_push_token, invalidated_at, invalid_reason
      FROM installations WHERE app_id = $1 AND installation_id = x.installation_id LIMIT 1) i
  ),
  written AS (
    INSERT INTO installations AS i (app_id, installation_id, platform, push_token, web_push_subscription, device, user_id, permission,
      registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, tags, properties,
      live_activity_start_tokens, widget_push_token)
    SELECT $1, r.installation_id, r.platform, r.push_token, r.web_push_subscription, r.device, r.user_id, r.permission,
      COALESCE(r.registered_at, now()), COALESCE(r.last_seen_at, r.registered_at, now()),
      COALESCE(r.identifier_updated_at, CASE WHEN r.user_id IS NOT NULL THEN COALESCE(r.registered_at, now()) END),
      COALESCE(r.permission_updated_at, CASE WHEN r.given_permission IS NOT NULL THEN COALESCE(r.registered_at, now()) END),
      r.invalidated_at, r.invalid_reason, r.tags, r.properties, r.live_activity_start_tokens, r.widget_push_token
    FROM input r
    WHERE NOT EXISTS (SELECT 1 FROM before b WHERE b.installation_id = r.installation_id AND b.live AND (b.same OR b.platform <> r.platform))
    ON CONFLICT (app_id, installation_id) DO UPDATE SET
      platform = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.platform ELSE i.platform END,
      ${[...liveValues('EXCLUDED'), ...HISTORY].map(([column, value]) => whenLive(column, value)).join(',\n      ')},
      deleted_at = NULL
    WHERE i.deleted_at IS NOT NULL OR (i.platform = EXCLUDED.platform AND ${differs('EXCLUDED')})
    RETURNING i.id, i.installation_id
  ),
  targets AS (
    SELECT id, installation_id FROM written
    UNION ALL
    SELECT b.id, b.installation_id FROM before b JOIN input x USING (installation_id)
    WHERE b.live AND b.platform = x.platform AND NOT EXISTS (SELECT 1 FROM written w WHERE w.installation_id = b.installation_id)
  ),
  badged AS (
    INSERT INTO installation_badges AS b (installation_id, badge)
    SELECT t.id, r.badge FROM input r JOIN targets t USING (installation_id)
    WHERE r.badge IS NOT NULL AND r.badge <> COALESCE((SELECT s.badge FROM installation_badges s WHERE s.installation_id = t.id), 0)
    ON CONFLICT (installation_id) DO UPDATE SET badge = EXCLUDED.badge
    RETURNING b.installation_id AS id
  ),
  badged_ids AS (SELECT t.installation_id FROM badged bd JOIN targets t ON t.id = bd.id)
  SELECT r.line,
    CASE WHEN bf.live AND bf.platform <> r.platform THEN 'platform_differs'
      WHEN w.installation_id IS NOT NULL AND (bf.installation_id IS NULL OR NOT bf.live) THEN 'created'
      WHEN w.installation_id IS NOT NULL OR bd.installation_id IS NOT NULL THEN 'updated'
      ELSE 'unchanged' END AS outcome,
    CASE WHEN bf.live AND bf.platform <> r.platform THEN bf.platform END AS stored_platform
  FROM input r LEFT JOIN before bf USING (installation_id) LEFT JOIN written w USING (installation_id) LEFT JOIN badged_ids bd USING (installation_id)
  ORDER BY r.line`;

const IMPORT_ROW: ImportRow = {
  line: 2,
  installationId: 'device-1',
  values: {
    platform: 'android',
    pushToken: 'token',
    webPushSubscription: null,
    device: '{}',
    userId: 'user-1',
    permission: 'granted',
    tags: [],
    badge: null,
    properties: '{"plan":"pro"}',
    liveActivityStartTokens: '{}',
    widgetPushToken: null,
  },
  registeredAt: AT,
  lastSeenAt: AT,
  identifierUpdatedAt: null,
  permissionUpdatedAt: null,
  invalidatedAt: null,
  invalidReason: null,
};

/** A dry run's batch is written and then rolled back, so its outcomes are exact. */
class DryRun extends Error {}

/** `pns import` and `pns export` (docs/api.md#import, #export): installations in batches, for an operator. */
@Injectable()
@SqlFile('transfer.repository.sql', (db) => new TransferRepository(db))
export class TransferRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Writes a batch (at most one line per installation id) in one transaction; rolls it back when `dryRun`. */
  @GenerateSql({ params: [ID, [IMPORT_ROW], false] })
  async write(appId: string, rows: ImportRow[], dryRun: boolean): Promise<ImportOutcome[]> {
    const input = JSON.stringify(rows.map(inputOf));
    let outcomes: ImportOutcome[] = [];
    try {
      await this.db.transaction(async (manager) => {
        outcomes = await manager.query(WRITE_SQL, [appId, input]);
        if (dryRun) throw new DryRun();
      });
    } catch (error) {
      if (!(error instanceof DryRun)) throw error;
    }
    return outcomes;
  }

  /** A page of the app's live installations after `after`, in installation_id order (the unique index). */
  @GenerateSql({ params: [ID, '', 1000] })
  exportPage(appId: string, after: string, limit: number): Promise<ExportRow[]> {
    return this.db.query(
      `SELECT i.installation_id, i.platform, i.push_token, i.web_push_subscription, i.widget_push_token, i.device, i.user_id, i.permission, i.tags, i.properties,
         COALESCE((SELECT b.badge FROM installation_badges b WHERE b.installation_id = i.id), 0) AS badge, i.live_activity_start_tokens,
         i.registered_at, i.last_seen_at, i.identifier_updated_at, i.permission_updated_at, i.invalidated_at, i.invalid_reason
       FROM installations i WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.installation_id > $2
       ORDER BY i.installation_id LIMIT $3`,
      [appId, after, limit],
    );
  }
}

function inputOf(row: ImportRow) {
  const { values } = row;
  return {
    line: row.line,
    installation_id: row.installationId,
    platform: values.platform,
    push_token: values.pushToken,
    web_push_subscription: values.webPushSubscription === null ? null : (JSON.parse(values.webPushSubscription) as unknown),
    widget_push_token: values.widgetPushToken,
    device: JSON.parse(values.device) as unknown,
    user_id: values.userId,
    permission: values.permission,
    tags: values.tags,
    properties: JSON.parse(values.properties) as unknown,
    badge: values.badge,
    live_activity_start_tokens: JSON.parse(values.liveActivityStartTokens) as unknown,
    registered_at: row.registeredAt,
    last_seen_at: row.lastSeenAt,
    identifier_updated_at: row.identifierUpdatedAt,
    permission_updated_at: row.permissionUpdatedAt,
    invalidated_at: row.invalidatedAt,
    invalid_reason: row.invalidReason,
  };
}
