import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Platform } from '../common/platform';

/**
 * One chunk of users: every non-deleted installation of theirs becomes a delivery row, pending
 * (numbered into delivery batches) or skipped with its reason (docs/api.md 5.2), in one statement.
 * Each row carries the notification's processing_started_at, its partition key (delivery.entity.ts),
 * copied in SQL: through JavaScript's Date it would lose its microseconds and no longer match.
 */
export const FANOUT_CHUNK_SQL = `
  WITH targets AS (
    SELECT i.id, i.user_id, i.platform,
      CASE
        WHEN NOT (i.platform = ANY($5::text[])) THEN 'PlatformExcluded'
        WHEN NOT (i.platform = ANY($6::text[])) THEN 'NoCredentials'
        WHEN i.permission = 'denied' THEN 'PermissionDenied'
        WHEN i.invalidated_at IS NOT NULL THEN 'Invalidated'
        WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN 'NoToken'
      END AS skip_reason
    FROM installations i
    WHERE i.app_id = $1 AND i.user_id = ANY($2::text[]) AND i.deleted_at IS NULL
  ),
  numbered AS (
    SELECT t.*, CASE WHEN t.skip_reason IS NULL
      THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL ORDER BY t.platform, t.id) - 1) / $4 END AS batch_offset
    FROM targets t
  ),
  inserted AS (
    INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, batch, status, reason)
    SELECT $3, n.id, (SELECT processing_started_at FROM notifications WHERE id = $3), n.platform, COALESCE($7 + n.batch_offset, -1),
      CASE WHEN n.skip_reason IS NULL THEN 'pending' ELSE 'skipped' END, n.skip_reason
    FROM numbered n
    ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING
    RETURNING status, batch, platform, reason
  )
  SELECT
    (SELECT count(DISTINCT user_id) FROM targets)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = 'skipped')::int AS skipped,
    (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
       SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = 'skipped' GROUP BY platform, reason) s) AS skipped_by_reason,
    (SELECT COALESCE(max(batch_offset) + 1, 0) FROM numbered)::int AS batches_used,
    (SELECT COALESCE(array_agg(DISTINCT batch), '{}') FROM inserted WHERE status = 'pending') AS batches`;

/** A notification as its fan-out begins. */
export interface StartedRow {
  app_id: string;
  /** The send's options; of these, the fan-out reads only `platforms` (absent: every platform). */
  options: { platforms?: Platform[] } | null;
  fanout_position: number;
  fanned_out_at: Date | null;
}

/** What the fan-out of one chunk wrote. */
export interface ChunkResult {
  installations: number;
  /** Batch numbers that received pending rows. */
  batches: number[];
  /** The rows skipped, by platform and reason (for the skip metric). */
  skipped: { platform: Platform; reason: string; count: number }[];
}

/** What a chunk needs besides the notification: who may be sent to, and how rows are batched. */
export interface ChunkParams {
  appId: string;
  usersPerChunk: number;
  batchSize: number;
  /** Platforms the send targets. */
  wanted: readonly Platform[];
  /** Platforms the app has credentials for. */
  configured: Platform[];
}

/**
 * The fan-out's statements on `notifications` and `deliveries`. Progress (`fanout_position`)
 * moves in the same transaction as the rows it covers, so a fan-out killed mid-way continues
 * where it stopped and never counts an installation twice.
 */
@Injectable()
export class FanOutRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Marks processing as started (once) and reads where the fan-out stands; undefined when no such notification. */
  async start(notificationId: string): Promise<StartedRow | undefined> {
    // TypeORM answers an UPDATE ... RETURNING with [rows, affected].
    const [[started]]: [StartedRow[], number] = await this.db.query(
      `UPDATE notifications SET processing_started_at = COALESCE(processing_started_at, now())
       WHERE id = $1 RETURNING app_id, options, fanout_position, fanned_out_at`,
      [notificationId],
    );
    return started;
  }

  /**
   * Fans out the next `usersPerChunk` target users in one transaction: their delivery rows, the
   * progress and the statistics. Null when there was nothing left (the notification is then marked
   * fanned out) or another fan-out had finished it.
   */
  async nextChunk(notificationId: string, params: ChunkParams): Promise<ChunkResult | null> {
    return this.db.transaction(async (manager) => {
      // The row lock serialises fan-outs of one notification, should two ever run.
      const [n] = await manager.query(
        `SELECT fanout_position AS position, fanout_batches AS batches, fanned_out_at,
           user_ids[fanout_position + 1 : fanout_position + $2] AS user_ids
         FROM notifications WHERE id = $1 FOR UPDATE`,
        [notificationId, params.usersPerChunk],
      );
      if (n.fanned_out_at) return null;
      if (n.user_ids.length === 0) {
        await manager.query(`UPDATE notifications SET fanned_out_at = now() WHERE id = $1`, [notificationId]);
        return null;
      }
      const [r] = await manager.query(FANOUT_CHUNK_SQL, [
        params.appId,
        n.user_ids,
        notificationId,
        params.batchSize,
        params.wanted,
        params.configured,
        n.batches,
      ]);
      await manager.query(
        `UPDATE notifications SET fanout_position = fanout_position + $2, fanout_batches = fanout_batches + $3,
           stat_users = stat_users + $4, stat_installations = stat_installations + $5, stat_skipped = stat_skipped + $6
         WHERE id = $1`,
        [notificationId, n.user_ids.length, r.batches_used, r.users, r.installations, r.skipped],
      );
      return { installations: r.installations as number, batches: r.batches as number[], skipped: r.skipped_by_reason as ChunkResult['skipped'] };
    });
  }
}
