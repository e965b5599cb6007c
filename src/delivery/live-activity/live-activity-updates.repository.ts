import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { LiveActivityStatus, LiveActivityUpdateStatus } from '../../common/vocabulary';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';
import { ID } from '../../queries/fixtures';

/** An update with what sending it needs, read under its activity's lock. */
export interface LockedUpdateRow {
  id: string;
  seq: string;
  event: 'update' | 'end';
  content: {
    content_state: Record<string, unknown>;
    alert: { title?: string; body?: string; sound?: string } | null;
    stale_date: string | null;
    dismissal_date: string | null;
    relevance_score: number | null;
  };
  priority: 'high' | 'normal';
  accepted_at: Date;
  status: LiveActivityUpdateStatus;
  attempts: number;
  live_activity_id: string;
  app_id: string;
  push_token: string;
  activity_status: LiveActivityStatus;
  /** The newest update APNs accepted for the activity (0: none yet). */
  sent_seq: string;
}

/** What an attempt leaves: the update's status and reason, and what becomes of its activity. */
export interface UpdateOutcome {
  status: LiveActivityUpdateStatus;
  reason: string | null;
  attempts: number;
  /** APNs accepted it: the activity's `sent_seq` moves up to it. */
  sent: boolean;
  /** The activity ends now (`end` accepted, or the token refused), with this reason (null for an `end`). */
  endActivity: { status: LiveActivityStatus; reason: string | null } | null;
}

/**
 * One advisory lock per activity, held by the transaction that sends one of its updates: two
 * workers never send updates of the same activity at once, so APNs receives them in the order the
 * lock holders read `sent_seq`.
 */
const LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtextextended(live_activity_id::text, 0)) FROM live_activity_updates WHERE id = $1`;

/** Read in a statement of its own, after the lock: its snapshot then sees the last holder's commit. */
const READ_SQL = `
  SELECT u.id, u.seq, u.event, u.content, u.priority, u.accepted_at, u.status, u.attempts, u.live_activity_id,
    a.app_id, a.push_token, a.status AS activity_status, a.sent_seq
  FROM live_activity_updates u JOIN live_activities a ON a.id = u.live_activity_id
  WHERE u.id = $1`;

/** The outcome of one attempt: the update, and its activity when APNs accepted it or it ends. */
const RECORD_SQL = `
  WITH recorded AS (
    UPDATE live_activity_updates SET status = $2, reason = $3, attempts = $4, updated_at = now() WHERE id = $1
    RETURNING live_activity_id, seq)
  UPDATE live_activities a SET
    sent_seq = CASE WHEN $5::boolean THEN GREATEST(a.sent_seq, r.seq) ELSE a.sent_seq END,
    status = COALESCE($6::varchar, a.status),
    ended_at = CASE WHEN $6::varchar IS NOT NULL THEN COALESCE(a.ended_at, now()) ELSE a.ended_at END,
    invalid_reason = COALESCE($7::varchar, a.invalid_reason),
    updated_at = now()
  FROM recorded r WHERE a.id = r.live_activity_id`;

/** The statements of one locked attempt (see LiveActivityUpdatesRepository.locked). */
export class LockedUpdate {
  constructor(private readonly manager: EntityManager) {}

  async read(updateId: string): Promise<LockedUpdateRow | undefined> {
    const [row] = await this.manager.query<LockedUpdateRow[]>(READ_SQL, [updateId]);
    return row;
  }

  async record(updateId: string, outcome: UpdateOutcome): Promise<void> {
    await this.manager.query(RECORD_SQL, [
      updateId,
      outcome.status,
      outcome.reason,
      outcome.attempts,
      outcome.sent,
      outcome.endActivity?.status ?? null,
      outcome.endActivity?.reason ?? null,
    ]);
  }
}

/** The worker's side of `live_activity_updates` and `live_activities` (the API's is live-activities/). */
@Injectable()
@SqlFile('live-activity-updates.repository.sql')
export class LiveActivityUpdatesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Runs `attempt` in one transaction holding the lock of the update's activity (LOCK_SQL), so
   * what it reads, sends and records is one step in the activity's order.
   */
  @GenerateSql({
    params: [
      ID,
      async (update: LockedUpdate) => {
        await update.read(ID);
        await update.record(ID, { status: 'accepted', reason: null, attempts: 1, sent: true, endActivity: null });
      },
    ],
  })
  locked<T>(updateId: string, attempt: (update: LockedUpdate) => Promise<T>): Promise<T> {
    return this.db.transaction(async (manager) => {
      await manager.query(LOCK_SQL, [updateId]);
      return attempt(new LockedUpdate(manager));
    });
  }

  /**
   * Updates still pending whose last change is older than `olderThanMs` (their job may have been
   * lost with Redis): ids with their attempts so far, oldest first. The sweeper re-queues those no
   * job holds.
   */
  @GenerateSql({ params: [5_000, 1000, 'pending'] })
  owed(olderThanMs: number, limit: number, pending: LiveActivityUpdateStatus): Promise<{ id: string; attempts: number }[]> {
    return this.db.query(
      `SELECT id, attempts FROM live_activity_updates WHERE status = $3 AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
       ORDER BY updated_at LIMIT $2`,
      [olderThanMs, limit, pending],
    );
  }
}
