import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { named } from '../../common/sql/named';
import { ID } from '../../queries/fixtures';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';

/** One app at a time: the window's count and what it lets through are read and changed under this lock. */
const LOCK = `SELECT pg_advisory_xact_lock(hashtextextended('fanout_share:' || :app_id::text, 0))`;

const HOLD = `INSERT INTO fair_share_fanouts (app_id, notification_id)
  SELECT :app_id::uuid, n FROM unnest(:notification_ids::uuid[]) WITH ORDINALITY AS held(n, position) ORDER BY position
  ON CONFLICT (notification_id) DO NOTHING`;

/** Held fan-outs of the app, oldest first, as many as its window has room for; marked queued. */
const RELEASE = `UPDATE fair_share_fanouts SET queued_at = now()
  WHERE id IN (
    SELECT id FROM fair_share_fanouts
    WHERE app_id = :app_id::uuid AND queued_at IS NULL
    ORDER BY id
    LIMIT greatest(0, :window::int - (SELECT count(*) FROM fair_share_fanouts WHERE app_id = :app_id::uuid AND queued_at IS NOT NULL)))
  RETURNING notification_id`;

/** Every app's window of fan-outs (docs/api.md#fair-sharing): rows exist only for what is queued or held. */
@Injectable()
@SqlFile('fanout-shares.repository.sql')
export class FanoutSharesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Holds the app's new fan-outs behind its window, then lets through what it has room for: those notifications. */
  @GenerateSql({ params: [ID, [ID], 4] })
  offer(appId: string, notificationIds: readonly string[], window: number): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      await this.lock(tx, appId);
      const hold = named(HOLD, { app_id: appId, notification_ids: notificationIds });
      await tx.query(hold.text, hold.values);
      return this.release(tx, appId, window);
    });
  }

  /** A fan-out ended: its place goes to the app's next held fan-outs, which are returned. */
  @GenerateSql({ params: [ID, 4] })
  async finished(notificationId: string, window: number): Promise<string[]> {
    // Outside a transaction: a fan-out that holds no place (scheduled, throttled, small) costs one read.
    const find = named(`SELECT app_id FROM fair_share_fanouts WHERE notification_id = :notification_id::uuid`, { notification_id: notificationId });
    const [place]: { app_id: string }[] = await this.db.query(find.text, find.values);
    if (!place) return [];
    return this.db.transaction(async (tx) => {
      await this.lock(tx, place.app_id);
      const free = named(`DELETE FROM fair_share_fanouts WHERE notification_id = :notification_id::uuid`, { notification_id: notificationId });
      await tx.query(free.text, free.values);
      return this.release(tx, place.app_id, window);
    });
  }

  /**
   * Places whose fan-out is over (fanned out or completed) though no job gave them back (its worker
   * died after the fan-out's last commit), or whose job was run without its place: freed; their apps.
   */
  @GenerateSql({ params: [] })
  async freeEnded(): Promise<string[]> {
    const [rows]: [{ app_id: string }[], number] = await this.db.query(
      `DELETE FROM fair_share_fanouts f USING notifications n
       WHERE n.id = f.notification_id AND (n.fanned_out_at IS NOT NULL OR n.completed_at IS NOT NULL)
       RETURNING f.app_id`,
    );
    return [...new Set(rows.map((row) => row.app_id))];
  }

  /** Lets through the held fan-outs the app's window has room for (after the sweeper freed places). */
  @GenerateSql({ params: [ID, 4] })
  releaseHeld(appId: string, window: number): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      await this.lock(tx, appId);
      return this.release(tx, appId, window);
    });
  }

  private async lock(tx: EntityManager, appId: string): Promise<void> {
    const lock = named(LOCK, { app_id: appId });
    await tx.query(lock.text, lock.values);
  }

  private async release(tx: EntityManager, appId: string, window: number): Promise<string[]> {
    const release = named(RELEASE, { app_id: appId, window });
    const [released]: [{ notification_id: string }[], number] = await tx.query(release.text, release.values);
    return released.map((row) => row.notification_id);
  }
}
