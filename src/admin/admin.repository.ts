import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DeliveryStatus } from '../common/vocabulary';
import { AT, ID } from '../queries/fixtures';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

/** What the per-minute counters count (common/minute-counts.ts): a delivery's end, or `pending` again (retried). */
type RecordedStatus = Extract<DeliveryStatus, 'accepted' | 'failed' | 'skipped' | 'pending'>;

/** One (minute, outcome) count; outcome is what a delivery became (`pending`: retried). */
export interface MinuteCountRow {
  minute: Date;
  outcome: RecordedStatus;
  count: number;
}

/**
 * The dashboard's reads of the per-minute counters (`delivery_minutes`, written by the statements
 * that end deliveries: common/minute-counts.ts). Never `deliveries`: it has no index
 * on time, by design (docs/architecture.md, "The admin room").
 */
@Injectable()
@SqlFile('admin.repository.sql')
export class AdminRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Every app's outcomes per minute since `since` (the minute index). */
  @GenerateSql({ params: [AT] })
  minutesSince(since: Date): Promise<MinuteCountRow[]> {
    return this.db.query(
      `SELECT minute, outcome, sum(count)::int AS count FROM delivery_minutes WHERE minute >= $1
       GROUP BY minute, outcome ORDER BY minute, outcome`,
      [since],
    );
  }

  /** One notification's outcomes per minute, first minutes first (its primary key prefix), at most `limit` rows. */
  @GenerateSql({ params: [ID, 100] })
  minutesOf(notificationId: string, limit: number): Promise<MinuteCountRow[]> {
    return this.db.query(`SELECT minute, outcome, count FROM delivery_minutes WHERE notification_id = $1 ORDER BY minute, outcome LIMIT $2`, [
      notificationId,
      limit,
    ]);
  }
}
