import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { LiveActivityUpdateStatus } from '../../common/vocabulary';
import { WEBHOOK_FINISHED } from '../../common/webhook-events';
import { ownPartition } from '../../common/sql/own-partition';
import type { PartitionRange } from './retention-rules';
import { AT, ID, WEEK } from '../../queries/fixtures';
import { GenerateSql, SqlFile } from '../../queries/generate-sql';

/** The tables partitioned by week of their notification's start (migration PartitionedDeliveries). */
export const PARTITIONED_TABLES = ['deliveries', 'notification_events'] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/** Partition DDL locks the parent exclusively and queues sends behind it: better to give up until the next run than stall them. */
const LOCK_TIMEOUT = '1s';

/** Partition names are ours (retention-rules.ts, the migration); checked before they reach DDL. */
const PARTITION_NAME = /^(deliveries|notification_events)_(p|before_)\d{8}$/;

/** A week's notifications: all of them, and those that keep it (unfinished or completed after the cutoff). */
export interface WeekHolds {
  notifications: number;
  held: number;
}

/** What dropping a week removed; the row counts are the planner's estimates (counting would read the week). */
export interface DroppedWeek {
  notifications: number;
  deliveries: number;
  events: number;
}

const inWeek = (fromParam: string, toParam: string) =>
  `(${fromParam}::timestamptz IS NULL OR processing_started_at >= ${fromParam}) AND processing_started_at < ${toParam}`;

/** Retention's statements (docs/operations.md#data-retention). */
@Injectable()
@SqlFile('retention.repository.sql')
export class RetentionRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql({ params: ['deliveries'] })
  async partitions(table: PartitionedTable): Promise<PartitionRange[]> {
    const rows: { name: string; from: Date | null; to: Date }[] = await this.db.query(
      `SELECT c.relname AS name,
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']*)''\\)'))[1]::timestamptz AS "from",
         (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']*)''\\)'))[1]::timestamptz AS "to"
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = $1::regclass
       ORDER BY 3`,
      [table],
    );
    return rows;
  }

  @GenerateSql({ params: ['deliveries', WEEK.name, WEEK.from, WEEK.to] })
  async createPartition(table: PartitionedTable, name: string, from: Date, to: Date): Promise<void> {
    checkName(name);
    // Half-empty pages keep a delivery's two later updates on its own page (migration DeliveriesHotUpdates).
    const storage = table === 'deliveries' ? ' WITH (fillfactor = 50)' : '';
    await this.db.transaction(async (manager) => {
      await manager.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      await manager.query(
        `CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF "${table}"
         FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')${storage}`,
      );
    });
  }

  @GenerateSql({ params: [WEEK, AT] })
  async weekHolds(week: PartitionRange, cutoff: Date, manager: EntityManager = this.db.manager): Promise<WeekHolds> {
    const [row]: WeekHolds[] = await manager.query(
      `SELECT count(*)::int AS notifications,
         count(*) FILTER (WHERE completed_at IS NULL OR completed_at >= $3)::int AS held
       FROM notifications WHERE ${inWeek('$1', '$2')}`,
      [week.from, week.to, cutoff],
    );
    return row;
  }

  /** Drops the week's two partitions under a brief lock (its notifications go after, in deleteUncovered); null when the week turned out held. */
  @GenerateSql({ params: [WEEK, AT], answers: [[], [], [], [], [{ notifications: 0, held: 0 }]] })
  async dropWeek(week: PartitionRange, cutoff: Date): Promise<DroppedWeek | null> {
    const events = eventsPartitionOf(week.name);
    checkName(week.name);
    checkName(events);
    return this.db
      .transaction(async (manager) => {
        await manager.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
        const estimates: { relname: string; rows: number }[] = await manager.query(
          `SELECT relname, greatest(reltuples, 0)::bigint::int AS rows FROM pg_class WHERE relname = ANY($1::text[])`,
          [[week.name, events]],
        );
        const estimate = (name: string) => estimates.find((e) => e.relname === name)?.rows ?? 0;
        await manager.query(`DROP TABLE IF EXISTS "${week.name}"`);
        await manager.query(`DROP TABLE IF EXISTS "${events}"`);
        // Cannot be held (notifications start at now(), completions stay), but checked again now that no delivery can be written.
        const holds = await this.weekHolds(week, cutoff, manager);
        if (holds.held > 0) throw new WeekHeldError(); // rolls the drops back
        return { notifications: holds.notifications, deliveries: estimate(week.name), events: estimate(events) };
      })
      .catch((error: unknown) => {
        if (error instanceof WeekHeldError) return null;
        throw error;
      });
  }

  /** Deletes notifications completed before the cutoff in weeks no partition covers (just dropped, or by a run that stopped early); how many. */
  @GenerateSql({ params: [AT, [WEEK]] })
  async deleteUncovered(cutoff: Date, partitions: readonly PartitionRange[]): Promise<number> {
    const [, deleted]: [unknown, number] = await this.db.query(
      `DELETE FROM notifications n
       WHERE n.processing_started_at < $1 AND n.completed_at < $1
         AND NOT EXISTS (
           SELECT 1 FROM unnest($2::timestamptz[], $3::timestamptz[]) AS p(starts, ends)
           WHERE (p.starts IS NULL OR n.processing_started_at >= p.starts) AND n.processing_started_at < p.ends)`,
      [cutoff, partitions.map((p) => p.from), partitions.map((p) => p.to)],
    );
    return deleted;
  }

  /** Expired notifications of the week (completed before the cutoff), oldest completion first. */
  @GenerateSql({ params: [WEEK, AT, 100] })
  async expiredInWeek(week: PartitionRange, cutoff: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.db.query(
      `SELECT id FROM notifications WHERE ${inWeek('$1', '$2')} AND completed_at < $3 ORDER BY completed_at LIMIT $4`,
      [week.from, week.to, cutoff, limit],
    );
    return rows.map((r) => r.id);
  }

  @GenerateSql({ params: ['deliveries', ID, 1000] })
  async deleteRows(table: PartitionedTable, notificationId: string, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.db.query(
      `DELETE FROM ${table} t WHERE t.notification_id = $1 AND ${ownPartition('t', '$1')}
         AND t.ctid = ANY (ARRAY(SELECT s.ctid FROM ${table} s WHERE s.notification_id = $1 AND ${ownPartition('s', '$1')} LIMIT $2))`,
      [notificationId, limit],
    );
    return deleted;
  }

  /** Deletes up to `limit` webhook messages delivered or given up before `cutoff`; how many. */
  @GenerateSql({ params: [AT, 1000] })
  async deleteFinishedWebhookMessages(cutoff: Date, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.db.query(
      `DELETE FROM webhook_messages WHERE id IN (
         SELECT id FROM webhook_messages WHERE ${WEBHOOK_FINISHED} AND finished_at < $1 ORDER BY finished_at LIMIT $2)`,
      [cutoff, limit],
    );
    return deleted;
  }

  /** Deletes up to `limit` Live Activity broadcasts accepted or failed before `cutoff` (docs/api.md#live-activity-channels); how many. Pending ones stay. */
  @GenerateSql({ params: [AT, 1000] })
  async deleteFinishedBroadcasts(cutoff: Date, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.db.query(
      `DELETE FROM live_activity_broadcasts WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM live_activity_broadcasts WHERE status <> $3 AND updated_at < $1 LIMIT $2))`,
      [cutoff, limit, 'pending' satisfies LiveActivityUpdateStatus],
    );
    return deleted;
  }

  /** Deletes up to `limit` inbox messages expired before `now` (docs/api.md#inbox); how many. */
  @GenerateSql({ params: [AT, 1000] })
  async deleteExpiredInboxMessages(now: Date, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.db.query(
      `DELETE FROM inbox_messages WHERE id IN (SELECT id FROM inbox_messages WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
      [now, limit],
    );
    return deleted;
  }

  /** Deletes up to `limit` audit log entries older than `before` (docs/api.md#275-audit-log), oldest first by its time index; how many. */
  @GenerateSql({ params: [AT, 1000] })
  async deleteAuditEntries(before: Date, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.db.query(
      `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < $1 ORDER BY at LIMIT $2)`,
      [before, limit],
    );
    return deleted;
  }

  /** Deletes up to `limit` marketing receipts older than `before` (docs/api.md#pacing); how many. No time index: rows are appended in time order. */
  @GenerateSql({ params: [AT, 1000] })
  async deleteMarketingReceipts(before: Date, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.db.query(
      `DELETE FROM marketing_receipts WHERE ctid = ANY(ARRAY(SELECT ctid FROM marketing_receipts WHERE accepted_at < $1 LIMIT $2))`,
      [before, limit],
    );
    return deleted;
  }

  /** Deletes the notification row itself (its deliveries and events gone before). */
  @GenerateSql({ params: [ID] })
  async deleteNotification(notificationId: string): Promise<void> {
    await this.db.query(`DELETE FROM notifications WHERE id = $1`, [notificationId]);
  }
}

class WeekHeldError extends Error {}

export function eventsPartitionOf(deliveriesPartition: string): string {
  return `notification_events${deliveriesPartition.slice('deliveries'.length)}`;
}

function checkName(name: string): void {
  if (!PARTITION_NAME.test(name)) throw new Error(`Not a partition name of ours: ${name}`);
}
