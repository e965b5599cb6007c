import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { IdempotencyRepository } from '../notifications/idempotency/idempotency.repository';
import { DataSource, EntityManager } from 'typeorm';
import type { LiveActivityStatus, LiveActivityUpdateStatus } from '../common/vocabulary';
import { GenerateSql, SqlFile } from '../queries/generate-sql';
import { AT, ID, OTHER_ID } from '../queries/fixtures';

/** A `live_activities` row with its installation's own id (the client's), as the resource shows it. */
export interface LiveActivityRow {
  id: string;
  activity_id: string;
  installation_key: string;
  attributes_type: string;
  status: LiveActivityStatus;
  created_at: Date;
  updated_at: Date;
  ended_at: Date | null;
  invalid_reason: string | null;
}

/** A `live_activity_updates` row, as the resource shows it. */
export interface LiveActivityUpdateRow {
  id: string;
  seq: string;
  event: string;
  status: LiveActivityUpdateStatus;
  reason: string | null;
  accepted_at: Date;
}

/** An activity with its newest update (by `seq`), for the operator dashboard; the `last_*` columns are null without one. */
export interface LiveActivityWithLastUpdateRow extends LiveActivityRow {
  last_id: string | null;
  last_seq: string | null;
  last_event: string | null;
  last_status: LiveActivityUpdateStatus | null;
  last_reason: string | null;
  last_accepted_at: Date | null;
  last_updated_at: Date | null;
}

/** An update the API accepts; `content` is JSON text. */
export interface NewLiveActivityUpdate {
  event: string;
  content: string;
  priority: string;
  /** The instant of acceptance (the service's clock); never earlier than the activity's previous one. */
  acceptedAt: Date;
}

const ACTIVITY_COLUMNS = `a.id, a.activity_id, i.installation_id AS installation_key, a.attributes_type, a.status, a.created_at, a.updated_at,
  a.ended_at, a.invalid_reason`;
const UPDATE_COLUMNS = `id, seq, event, status, reason, accepted_at`;

/** Records or refreshes an activity; a changed token revives one that ended. */
const UPSERT_SQL = `
  WITH upserted AS (
    INSERT INTO live_activities AS a (app_id, activity_id, installation_id, attributes_type, push_token)
    VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (app_id, activity_id) DO UPDATE SET
      installation_id = EXCLUDED.installation_id, attributes_type = EXCLUDED.attributes_type, push_token = EXCLUDED.push_token,
      status = CASE WHEN a.push_token IS DISTINCT FROM EXCLUDED.push_token THEN $6 ELSE a.status END,
      ended_at = CASE WHEN a.push_token IS DISTINCT FROM EXCLUDED.push_token THEN NULL ELSE a.ended_at END,
      invalid_reason = CASE WHEN a.push_token IS DISTINCT FROM EXCLUDED.push_token THEN NULL ELSE a.invalid_reason END,
      updated_at = now()
    RETURNING *, (xmax = 0) AS created)
  SELECT ${ACTIVITY_COLUMNS}, a.created FROM upserted a JOIN installations i ON i.id = a.installation_id`;

// Numbers and stores an update; the activity's row lock orders them, so a later number never carries an earlier timestamp. No row unless `active`.
const ACCEPT_SQL = `
  WITH activity AS (
    UPDATE live_activities SET last_seq = last_seq + 1, last_accepted_at = GREATEST(last_accepted_at, $3::timestamptz), updated_at = now()
    WHERE app_id = $1 AND activity_id = $2 AND status = $4
    RETURNING id, last_seq, last_accepted_at)
  INSERT INTO live_activity_updates (live_activity_id, seq, event, content, priority, accepted_at)
  SELECT id, last_seq, $5, $6::jsonb, $7, last_accepted_at FROM activity
  RETURNING ${UPDATE_COLUMNS}`;

/** A `live_activity_channels` row. */
export interface LiveActivityChannelRow {
  id: string;
  storage: string;
  created_at: Date;
}

const LIVE_UPDATE: NewLiveActivityUpdate = { event: 'update', content: '{"content_state":{}}', priority: 'normal', acceptedAt: AT };

/** The API's side of `live_activities` and `live_activity_updates` (delivery sends them in its own statements). */
@Injectable()
@SqlFile('live-activities.repository.sql', (db) => new LiveActivitiesRepository(db, new IdempotencyRepository(db)))
export class LiveActivitiesRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly idempotencyKeys: IdempotencyRepository,
  ) {}

  /** A live installation of the app: its server id and platform. */
  @GenerateSql({ params: [ID, 'device-1'] })
  async installation(appId: string, installationId: string): Promise<{ id: string; platform: string } | undefined> {
    const [row] = await this.db.query<{ id: string; platform: string }[]>(
      `SELECT id, platform FROM installations WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL`,
      [appId, installationId],
    );
    return row;
  }

  @GenerateSql({ params: [ID, 'activity-1', OTHER_ID, 'Attributes', 'ab', 'active'] })
  async upsert(
    appId: string,
    activityId: string,
    installationUuid: string,
    attributesType: string,
    pushToken: string,
    active: LiveActivityStatus,
  ): Promise<LiveActivityRow & { created: boolean }> {
    const [row] = await this.db.query<(LiveActivityRow & { created: boolean })[]>(UPSERT_SQL, [
      appId,
      activityId,
      installationUuid,
      attributesType,
      pushToken,
      active,
    ]);
    return row;
  }

  @GenerateSql({ params: [ID, 'activity-1'] })
  async find(appId: string, activityId: string): Promise<LiveActivityRow | undefined> {
    const [row] = await this.db.query<LiveActivityRow[]>(
      `SELECT ${ACTIVITY_COLUMNS} FROM live_activities a JOIN installations i ON i.id = a.installation_id WHERE a.app_id = $1 AND a.activity_id = $2`,
      [appId, activityId],
    );
    return row;
  }

  /** Marks it `ended` ($3) now, unless it already was; false when unknown. */
  @GenerateSql({ params: [ID, 'activity-1', 'ended'] })
  async end(appId: string, activityId: string, ended: LiveActivityStatus): Promise<boolean> {
    const [, count]: [unknown[], number] = await this.db.query(
      `UPDATE live_activities SET status = $3, ended_at = COALESCE(ended_at, now()), updated_at = now()
       WHERE app_id = $1 AND activity_id = $2`,
      [appId, activityId, ended],
    );
    return count > 0;
  }

  /** ACCEPT_SQL; undefined when the activity is unknown or not `active`. */
  @GenerateSql({ params: [ID, 'activity-1', LIVE_UPDATE, 'active'] })
  accept(appId: string, activityId: string, update: NewLiveActivityUpdate, active: LiveActivityStatus): Promise<LiveActivityUpdateRow | undefined> {
    return this.acceptWith(this.db.manager, appId, activityId, update, active);
  }

  /** ACCEPT_SQL with its response stored under the claimed key in one transaction; undefined unless `active`. */
  @GenerateSql({ params: [ID, 'activity-1', LIVE_UPDATE, 'active', 'key', () => ({ status: 202, body: '{}' })], answers: [[{ id: OTHER_ID }]] })
  acceptWithResponse(
    appId: string,
    activityId: string,
    update: NewLiveActivityUpdate,
    active: LiveActivityStatus,
    key: string,
    respond: (row: LiveActivityUpdateRow) => { status: number; body: string },
  ): Promise<{ row: LiveActivityUpdateRow; body: string } | undefined> {
    return this.db.transaction(async (manager) => {
      const row = await this.acceptWith(manager, appId, activityId, update, active);
      if (!row) return undefined;
      const response = respond(row);
      await this.idempotencyKeys.complete(appId, key, response.status, response.body, manager);
      return { row, body: response.body };
    });
  }

  /** The app's newest activities (by creation), each with its newest update: one index probe on (live_activity_id, seq) per activity. */
  @GenerateSql({ params: [ID, 100] })
  withLastUpdate(appId: string, limit: number): Promise<LiveActivityWithLastUpdateRow[]> {
    return this.db.query(
      `SELECT ${ACTIVITY_COLUMNS}, u.id AS last_id, u.seq AS last_seq, u.event AS last_event, u.status AS last_status, u.reason AS last_reason,
         u.accepted_at AS last_accepted_at, u.updated_at AS last_updated_at
       FROM live_activities a JOIN installations i ON i.id = a.installation_id
       LEFT JOIN LATERAL (
         SELECT id, seq, event, status, reason, accepted_at, updated_at FROM live_activity_updates
         WHERE live_activity_id = a.id ORDER BY seq DESC LIMIT 1) u ON true
       WHERE a.app_id = $1 ORDER BY a.created_at DESC, a.id LIMIT $2`,
      [appId, limit],
    );
  }

  @GenerateSql({ params: [ID, 'activity-1', OTHER_ID] })
  async findUpdate(appId: string, activityId: string, updateId: string): Promise<LiveActivityUpdateRow | undefined> {
    const [row] = await this.db.query<LiveActivityUpdateRow[]>(
      `SELECT u.id, u.seq, u.event, u.status, u.reason, u.accepted_at FROM live_activity_updates u
       JOIN live_activities a ON a.id = u.live_activity_id WHERE a.app_id = $1 AND a.activity_id = $2 AND u.id = $3`,
      [appId, activityId, updateId],
    );
    return row;
  }

  private async acceptWith(
    manager: EntityManager,
    appId: string,
    activityId: string,
    update: NewLiveActivityUpdate,
    active: LiveActivityStatus,
  ): Promise<LiveActivityUpdateRow | undefined> {
    const [row] = await manager.query<LiveActivityUpdateRow[]>(ACCEPT_SQL, [
      appId,
      activityId,
      update.acceptedAt,
      active,
      update.event,
      update.content,
      update.priority,
    ]);
    return row;
  }

  @GenerateSql({ params: [ID, 'channel-1', 'none'] })
  async insertChannel(appId: string, id: string, storage: string): Promise<LiveActivityChannelRow> {
    const [row] = await this.db.query<LiveActivityChannelRow[]>(
      `INSERT INTO live_activity_channels (app_id, id, storage) VALUES ($1, $2, $3) RETURNING id, storage, created_at`,
      [appId, id, storage],
    );
    return row;
  }

  /** The app's channels, newest first. */
  @GenerateSql({ params: [ID] })
  channels(appId: string): Promise<LiveActivityChannelRow[]> {
    return this.db.query(`SELECT id, storage, created_at FROM live_activity_channels WHERE app_id = $1 ORDER BY created_at DESC, id`, [appId]);
  }

  @GenerateSql({ params: [ID, 'channel-1'] })
  async findChannel(appId: string, id: string): Promise<LiveActivityChannelRow | undefined> {
    const [row] = await this.db.query<LiveActivityChannelRow[]>(`SELECT id, storage, created_at FROM live_activity_channels WHERE app_id = $1 AND id = $2`, [
      appId,
      id,
    ]);
    return row;
  }

  @GenerateSql({ params: [ID, 'channel-1'] })
  async deleteChannel(appId: string, id: string): Promise<void> {
    await this.db.query(`DELETE FROM live_activity_channels WHERE app_id = $1 AND id = $2`, [appId, id]);
  }
}
