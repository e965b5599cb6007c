import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DeliveryStatus } from '../common/vocabulary';
import { AT, ID } from '../queries/fixtures';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

type RecordedStatus = Extract<DeliveryStatus, 'accepted' | 'failed' | 'skipped' | 'pending'>;

/** One (minute, outcome) count of common/minute-counts.ts; outcome is what a delivery became (`pending`: retried). */
export interface MinuteCountRow {
  minute: Date;
  outcome: RecordedStatus;
  count: number;
}

/** The dashboard reads `delivery_minutes`, never `deliveries`: it has no index on time, by design (docs/architecture.md#the-admin-room). */
@Injectable()
@SqlFile('admin.repository.sql')
export class AdminRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql({ params: [AT] })
  minutesSince(since: Date): Promise<MinuteCountRow[]> {
    return this.db.query(
      `SELECT minute, outcome, sum(count)::int AS count FROM delivery_minutes WHERE minute >= $1
       GROUP BY minute, outcome ORDER BY minute, outcome`,
      [since],
    );
  }

  /** As minutesSince, of these apps' notifications only (an operator of some apps, docs/api.md#roles). */
  @GenerateSql({ params: [AT, [ID]] })
  minutesOfAppsSince(since: Date, appIds: string[]): Promise<MinuteCountRow[]> {
    return this.db.query(
      `SELECT m.minute, m.outcome, sum(m.count)::int AS count FROM delivery_minutes m JOIN notifications n ON n.id = m.notification_id
       WHERE m.minute >= $1 AND n.app_id = ANY($2::uuid[])
       GROUP BY m.minute, m.outcome ORDER BY m.minute, m.outcome`,
      [since, appIds],
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
