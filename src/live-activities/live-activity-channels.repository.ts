import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { LiveActivityUpdateStatus } from '../common/vocabulary';
import { IdempotencyRepository } from '../notifications/idempotency/idempotency.repository';
import { GenerateSql, SqlFile } from '../queries/generate-sql';
import { AT, ID, OTHER_ID } from '../queries/fixtures';
import type { NewLiveActivityUpdate } from './live-activities.repository';

/** A `live_activity_broadcasts` row, as the resource shows it. */
export interface BroadcastRow {
  id: string;
  channel_id: string;
  event: string;
  status: LiveActivityUpdateStatus;
  reason: string | null;
  attempts: number;
  accepted_at: Date;
}

const COLUMNS = `id, channel_id, event, status, reason, attempts, accepted_at`;

/** Stores a broadcast to a channel of the app; no row when the app has no such channel. */
const ACCEPT_SQL = `
  INSERT INTO live_activity_broadcasts (app_id, channel_id, event, content, priority, accepted_at)
  SELECT c.app_id, c.id, $3, $4::jsonb, $5, $6 FROM live_activity_channels c WHERE c.app_id = $1 AND c.id = $2
  RETURNING ${COLUMNS}`;

const BROADCAST: NewLiveActivityUpdate = { event: 'update', content: '{"content_state":{}}', priority: 'normal', acceptedAt: AT };

/** The API's side of `live_activity_broadcasts` (delivery/live-activity/ sends them). */
@Injectable()
@SqlFile('live-activity-channels.repository.sql', (db) => new LiveActivityChannelsRepository(db, new IdempotencyRepository(db)))
export class LiveActivityChannelsRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly idempotencyKeys: IdempotencyRepository,
  ) {}

  @GenerateSql({ params: [ID, 'channel-1', BROADCAST] })
  accept(appId: string, channelId: string, broadcast: NewLiveActivityUpdate): Promise<BroadcastRow | undefined> {
    return this.acceptWith(this.db.manager, appId, channelId, broadcast);
  }

  /** ACCEPT_SQL with its answer stored under the claimed key, in one transaction. */
  @GenerateSql({ params: [ID, 'channel-1', BROADCAST, 'key', () => ({ status: 202, body: '{}' })], answers: [[{ id: OTHER_ID }]] })
  acceptWithResponse(
    appId: string,
    channelId: string,
    broadcast: NewLiveActivityUpdate,
    key: string,
    respond: (row: BroadcastRow) => { status: number; body: string },
  ): Promise<{ row: BroadcastRow; body: string } | undefined> {
    return this.db.transaction(async (manager) => {
      const row = await this.acceptWith(manager, appId, channelId, broadcast);
      if (!row) return undefined;
      const response = respond(row);
      await this.idempotencyKeys.complete(appId, key, response.status, response.body, manager);
      return { row, body: response.body };
    });
  }

  @GenerateSql({ params: [ID, 'channel-1', OTHER_ID] })
  async find(appId: string, channelId: string, id: string): Promise<BroadcastRow | undefined> {
    const [row] = await this.db.query<BroadcastRow[]>(`SELECT ${COLUMNS} FROM live_activity_broadcasts WHERE app_id = $1 AND channel_id = $2 AND id = $3`, [
      appId,
      channelId,
      id,
    ]);
    return row;
  }

  /** The newest broadcast of each of the app's channels named that has one. */
  @GenerateSql({ params: [ID, ['channel-1', 'channel-2']] })
  newestPerChannel(appId: string, channelIds: string[]): Promise<BroadcastRow[]> {
    return this.db.query<BroadcastRow[]>(
      `SELECT DISTINCT ON (channel_id) ${COLUMNS} FROM live_activity_broadcasts
       WHERE app_id = $1 AND channel_id = ANY($2::text[]) ORDER BY channel_id, accepted_at DESC, id DESC`,
      [appId, channelIds],
    );
  }

  private async acceptWith(manager: EntityManager, appId: string, channelId: string, broadcast: NewLiveActivityUpdate): Promise<BroadcastRow | undefined> {
    const [row] = await manager.query<BroadcastRow[]>(ACCEPT_SQL, [
      appId,
      channelId,
      broadcast.event,
      broadcast.content,
      broadcast.priority,
      broadcast.acceptedAt,
    ]);
    return row;
  }
}
