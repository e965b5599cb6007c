import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { LiveActivityUpdateStatus } from '../../common/vocabulary';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';
import { ID } from '../../queries/fixtures';
import type { LockedUpdateRow } from './live-activity-updates.repository';

/** A broadcast with what sending it needs, read under its row lock. */
export interface LockedBroadcastRow extends Pick<LockedUpdateRow, 'id' | 'event' | 'content' | 'priority' | 'accepted_at' | 'status' | 'attempts' | 'app_id'> {
  channel_id: string;
}

export interface BroadcastOutcome {
  status: LiveActivityUpdateStatus;
  reason: string | null;
  attempts: number;
}

/** The statements of one locked attempt (see LiveActivityBroadcastsRepository.locked). */
export class LockedBroadcast {
  constructor(private readonly manager: EntityManager) {}

  async read(id: string): Promise<LockedBroadcastRow | undefined> {
    const [row] = await this.manager.query<LockedBroadcastRow[]>(
      `SELECT id, app_id, channel_id, event, content, priority, accepted_at, status, attempts FROM live_activity_broadcasts WHERE id = $1`,
      [id],
    );
    return row;
  }

  async record(id: string, outcome: BroadcastOutcome): Promise<void> {
    await this.manager.query(`UPDATE live_activity_broadcasts SET status = $2, reason = $3, attempts = $4, updated_at = now() WHERE id = $1`, [
      id,
      outcome.status,
      outcome.reason,
      outcome.attempts,
    ]);
  }
}

/** The worker's side of `live_activity_broadcasts` (the API's is live-activities/). */
@Injectable()
@SqlFile('live-activity-broadcasts.repository.sql')
export class LiveActivityBroadcastsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Runs `attempt` in one transaction holding the broadcast's row lock: two jobs never send it at once. */
  @GenerateSql({
    params: [
      ID,
      async (broadcast: LockedBroadcast) => {
        await broadcast.read(ID);
        await broadcast.record(ID, { status: 'accepted', reason: null, attempts: 1 });
      },
    ],
  })
  locked<T>(id: string, attempt: (broadcast: LockedBroadcast) => Promise<T>): Promise<T> {
    return this.db.transaction(async (manager) => {
      await manager.query(`SELECT 1 FROM live_activity_broadcasts WHERE id = $1 FOR UPDATE`, [id]);
      return attempt(new LockedBroadcast(manager));
    });
  }

  /** Broadcasts still pending whose last change is older than `olderThanMs` (their job may be lost), oldest first. */
  @GenerateSql({ params: [5_000, 1000, 'pending'] })
  owed(olderThanMs: number, limit: number, pending: LiveActivityUpdateStatus): Promise<{ id: string; attempts: number }[]> {
    return this.db.query(
      `SELECT id, attempts FROM live_activity_broadcasts WHERE status = $3 AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
       ORDER BY updated_at LIMIT $2`,
      [olderThanMs, limit, pending],
    );
  }
}
