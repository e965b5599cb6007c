import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { STILL_TO_SEND } from '../../common/vocabulary';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';

/** docs/api.md#fair-sharing: a send's batches queue by lane within their app. */
export type Lane = 'transactional' | 'marketing';
export const LANES: readonly Lane[] = ['transactional', 'marketing'];

export interface LaneBatch {
  notification_id: string;
  batch: number;
}

const ID = '00000000-0000-4000-8000-000000000000';

/** One app and lane at a time: the window's count and what it lets through are read and changed under this lock. */
const LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext('fair_share:' || $1 || ':' || $2))`;

/** Held batches of the app and lane, oldest first, as many as its window has room for; marked queued. */
const RELEASE_SQL = `
  UPDATE fair_share_batches SET queued_at = now()
  WHERE id IN (
    SELECT id FROM fair_share_batches
    WHERE app_id = $1 AND lane = $2 AND queued_at IS NULL
    ORDER BY id
    LIMIT greatest(0, $3 - (SELECT count(*) FROM fair_share_batches WHERE app_id = $1 AND lane = $2 AND queued_at IS NOT NULL)))
  RETURNING notification_id, batch`;

/** Every app's window per lane (docs/api.md#fair-sharing): rows exist only for what is queued or held. */
@Injectable()
@SqlFile('fair-shares.repository.sql')
export class FairSharesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Holds a send's new batches behind the app's lane, then lets through what its window has room for: those batches. */
  @GenerateSql({ params: [ID, 'transactional', ID, [0, 1], 32] })
  offer(appId: string, lane: Lane, notificationId: string, batches: number[], window: number): Promise<LaneBatch[]> {
    return this.db.transaction(async (tx) => {
      await tx.query(LOCK_SQL, [appId, lane]);
      await tx.query(
        `INSERT INTO fair_share_batches (app_id, lane, notification_id, batch)
         SELECT $1, $2, $3, b FROM unnest($4::int[]) AS b ORDER BY b
         ON CONFLICT (notification_id, batch) DO NOTHING`,
        [appId, lane, notificationId, batches],
      );
      return this.release(tx, appId, lane, window);
    });
  }

  /** A queued batch's job finished: its place in the window goes to the lane's next held batches, which are returned. */
  @GenerateSql({ params: [ID, 0, 32] })
  async finished(notificationId: string, batch: number, window: number): Promise<LaneBatch[]> {
    // Outside a transaction: a batch that holds no place (throttled, due later, a small send's) costs one read.
    const [place]: { app_id: string; lane: Lane }[] = await this.db.query(
      `SELECT app_id, lane FROM fair_share_batches WHERE notification_id = $1 AND batch = $2`,
      [notificationId, batch],
    );
    if (!place) return [];
    return this.db.transaction(async (tx) => {
      // The lock first, as offer takes it: a re-offered batch's insert never waits on this delete while holding it.
      await tx.query(LOCK_SQL, [place.app_id, place.lane]);
      await tx.query(`DELETE FROM fair_share_batches WHERE notification_id = $1 AND batch = $2`, [notificationId, batch]);
      return this.release(tx, place.app_id, place.lane, window);
    });
  }

  /**
   * Window places whose batch has nothing left to send, queued over `stuckSeconds` ago: their job
   * ended without giving its place back (its worker died). Freed; the app and lane of each.
   */
  @GenerateSql({ params: [60] })
  async freeAbandoned(stuckSeconds: number): Promise<{ app_id: string; lane: Lane }[]> {
    const [rows]: [{ app_id: string; lane: Lane }[], number] = await this.db.query(
      `DELETE FROM fair_share_batches f
       WHERE f.queued_at < now() - make_interval(secs => $1)
         AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.notification_id = f.notification_id AND d.batch = f.batch AND d.status = ANY($2::text[]))
       RETURNING f.app_id, f.lane`,
      [stuckSeconds, STILL_TO_SEND],
    );
    return rows;
  }

  /** Places queued over `seconds` ago, oldest first: each should have a job; the sweeper checks (FairSharesService.requeueLost). */
  @GenerateSql({ params: [5, 1000] })
  queuedBefore(seconds: number, limit: number): Promise<LaneBatch[]> {
    return this.db.query(
      `SELECT notification_id, batch FROM fair_share_batches
       WHERE queued_at < now() - make_interval(secs => $1)
       ORDER BY queued_at LIMIT $2`,
      [seconds, limit],
    );
  }

  /** Lets through the held batches a lane's window has room for (after the sweeper freed places). */
  @GenerateSql({ params: [ID, 'marketing', 32] })
  releaseHeld(appId: string, lane: Lane, window: number): Promise<LaneBatch[]> {
    return this.db.transaction(async (tx) => {
      await tx.query(LOCK_SQL, [appId, lane]);
      return this.release(tx, appId, lane, window);
    });
  }

  private async release(tx: EntityManager, appId: string, lane: Lane, window: number): Promise<LaneBatch[]> {
    const [released]: [LaneBatch[], number] = await tx.query(RELEASE_SQL, [appId, lane, window]);
    return released;
  }
}
