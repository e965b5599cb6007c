import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DeliveryStatus } from '../../common/vocabulary';
import { HELD_SQL } from '../../common/variants';
import type { AbMetric } from '../../common/variants';
import { webhookOutboxInsert } from '../../common/webhook-events';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';
import { AT, ID } from '../../queries/fixtures';

/** What a decision needs of its notification. */
export interface AbTestRow {
  id: string;
  variants: { key: string }[];
  metric: AbMetric;
}

/** One variant's sample: accepted messages and how many of them reported the metric. */
export interface TallyRow {
  variant: number;
  accepted: number;
  metric: number;
}

/**
 * The one decision (docs/api.md#a-b-test-with-a-winner): `ab_phase` 'sample' → 'winner' only once,
 * only when the sample's fan-out has finished and the send is not cancelled; in the same statement
 * the webhook event and the release of the rows held for the winner, which take its variant.
 */
const DECIDE_SQL = `WITH decided AS (
    UPDATE notifications SET ab_phase = 'winner', ab_winner = $2::text, ab_decided_at = $4::timestamptz
    WHERE id = $1 AND ab_phase = 'sample' AND canceled_at IS NULL AND fanned_out_at IS NOT NULL
    RETURNING app_id, id, processing_started_at
  ), decided_events AS (
    ${webhookOutboxInsert('notification.ab_test_decided', 'SELECT app_id, id FROM decided')}
  ), released AS (
    UPDATE deliveries d SET variant = $3::smallint, status = $5::text, next_attempt_at = NULL, updated_at = now()
    FROM decided n
    WHERE d.notification_id = n.id AND d.notification_started_at = n.processing_started_at
      AND d.status = $6::text AND d.next_attempt_at = ${HELD_SQL}
    RETURNING d.batch
  )
  SELECT (SELECT count(*) FROM decided)::int AS decided, ARRAY(SELECT DISTINCT batch FROM released ORDER BY batch) AS batches`;

/** A/B tests' decisions (docs/api.md#a-b-test-with-a-winner): when each is due, the sample's figures, the decision. */
@Injectable()
@SqlFile('ab-tests.repository.sql')
export class AbTestsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Stores when the test is decided, once: a second start keeps the first due time. */
  @GenerateSql({ params: [ID, AT] })
  async setDue(notificationId: string, dueAt: Date): Promise<Date | null> {
    const [[row]]: [{ ab_due_at: Date }[], number] = await this.db.query(
      `UPDATE notifications SET ab_due_at = COALESCE(ab_due_at, $2::timestamptz) WHERE id = $1 AND ab_phase IS NOT NULL RETURNING ab_due_at`,
      [notificationId, dueAt],
    );
    return row?.ab_due_at ?? null;
  }

  /** Tests in their sample phase whose decision is due at `now` (the partial index notifications_ab_due_idx). */
  @GenerateSql({ params: [AT, 100] })
  async due(now: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM notifications WHERE ab_phase = 'sample' AND ab_due_at <= $1::timestamptz ORDER BY ab_due_at LIMIT $2`,
      [now, limit],
    );
    return rows.map((row) => row.id);
  }

  @GenerateSql({ params: [ID] })
  async find(notificationId: string): Promise<AbTestRow | undefined> {
    const [row]: AbTestRow[] = await this.db.query(
      `SELECT id, variants, options -> 'ab_test' ->> 'metric' AS metric FROM notifications WHERE id = $1 AND ab_phase = 'sample'`,
      [notificationId],
    );
    return row;
  }

  /** Each variant's sample so far: its accepted messages, and of its rows those that reported `metric` (docs/api.md#reads-and-events). */
  @GenerateSql({ params: [ID, 'opened'] })
  tallies(notificationId: string, metric: AbMetric): Promise<TallyRow[]> {
    return this.db.query(
      `SELECT d.variant, count(*) FILTER (WHERE d.status = $2::text)::int AS accepted, count(e.installation_id)::int AS metric
       FROM notifications n
       JOIN deliveries d ON d.notification_id = n.id AND d.notification_started_at = n.processing_started_at
       LEFT JOIN notification_events e ON e.notification_id = n.id AND e.notification_started_at = n.processing_started_at
         AND e.installation_id = d.installation_id AND e.type = $3::text
       WHERE n.id = $1 AND d.variant IS NOT NULL
       GROUP BY d.variant`,
      [notificationId, 'accepted' satisfies DeliveryStatus, metric],
    );
  }

  /** DECIDE_SQL: whether this call decided, and the batches of the rows it released to the winner. */
  @GenerateSql({ params: [ID, 'short', 0, AT], answers: [[{ decided: 1, batches: [3] }]] })
  async decide(notificationId: string, winnerKey: string, winnerIndex: number, now: Date): Promise<{ decided: boolean; batches: number[] }> {
    const [row]: { decided: number; batches: number[] }[] = await this.db.query(DECIDE_SQL, [
      notificationId,
      winnerKey,
      winnerIndex,
      now,
      'pending' satisfies DeliveryStatus,
      'scheduled' satisfies DeliveryStatus,
    ]);
    return { decided: row.decided > 0, batches: row.batches };
  }
}
