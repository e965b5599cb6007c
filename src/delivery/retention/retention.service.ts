import { Injectable, Logger } from '@nestjs/common';
import { FREQUENCY_CAP_HOURS } from '../../common/notification-options';
import { EnvironmentVariables } from '../../config/env';
import { heldTooLong, partitionName, PartitionRange, partitionsDue, retentionCutoff, WEEK_MS, weeksToCreate } from './retention-rules';
import { eventsPartitionOf, PARTITIONED_TABLES, RetentionRepository } from './retention.repository';

/** Late notifications deleted row by row per run: a run stays short. */
const LATE_NOTIFICATIONS_PER_RUN = 100;
const ROWS_PER_STATEMENT = 5000;
const LATE_ROWS_PER_RUN = 100_000;

/** lock_not_available: the DDL gave up waiting (LOCK_TIMEOUT) and is tried next run. */
const LOCK_NOT_AVAILABLE = '55P03';

export interface RetentionReport {
  partitionsCreated: string[];
  weeksDropped: string[];
  weeksKept: string[];
  notificationsDeleted: number;
  /** Estimates for dropped weeks, exact for rows deleted one by one. */
  deliveriesDeleted: number;
  eventsDeleted: number;
  webhookMessagesDeleted: number;
  broadcastsDeleted: number;
  marketingReceiptsDeleted: number;
  inboxMessagesDeleted: number;
  auditEntriesDeleted: number;
}

/** Data lifecycle (docs/api.md#data-lifecycle): completed notifications past RETENTION_DAYS go by week, partitions dropped. */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger(RetentionService.name);

  constructor(
    private readonly repository: RetentionRepository,
    private readonly config: EnvironmentVariables,
  ) {}

  async run(now = new Date()): Promise<RetentionReport> {
    const report: RetentionReport = {
      partitionsCreated: await this.createWeeksAhead(now),
      weeksDropped: [],
      weeksKept: [],
      notificationsDeleted: 0,
      deliveriesDeleted: 0,
      eventsDeleted: 0,
      webhookMessagesDeleted: 0,
      broadcastsDeleted: 0,
      marketingReceiptsDeleted: 0,
      inboxMessagesDeleted: 0,
      auditEntriesDeleted: 0,
    };
    if (this.config.RETENTION_DAYS > 0) await this.purge(now, report);
    // Counters, not records: past the longest cap window they count for nothing.
    const receiptsBefore = new Date(now.getTime() - FREQUENCY_CAP_HOURS.max * 3_600_000);
    report.marketingReceiptsDeleted = await this.deleteInStatements('marketing receipts older than the longest frequency cap', (limit) =>
      this.repository.deleteMarketingReceipts(receiptsBefore, limit),
    );
    // Each app's inbox days set its messages' expiry when they were stored, whatever RETENTION_DAYS.
    report.inboxMessagesDeleted = await this.deleteInStatements('expired inbox messages', (limit) => this.repository.deleteExpiredInboxMessages(now, limit));
    if (this.config.AUDIT_LOG_RETENTION_DAYS > 0) {
      const auditBefore = retentionCutoff(now, this.config.AUDIT_LOG_RETENTION_DAYS);
      report.auditEntriesDeleted = await this.deleteInStatements('audit log entries', (limit) => this.repository.deleteAuditEntries(auditBefore, limit));
    }
    return report;
  }

  private async createWeeksAhead(now: Date): Promise<string[]> {
    const created: string[] = [];
    for (const table of PARTITIONED_TABLES) {
      for (const from of weeksToCreate(now, await this.repository.partitions(table))) {
        const name = partitionName(table, from);
        const to = new Date(from.getTime() + WEEK_MS);
        if (!(await this.ddl(`create ${name}`, () => this.repository.createPartition(table, name, from, to).then(() => true)))) continue;
        created.push(name);
        this.logger.log(`Retention: created partition ${name}`);
      }
    }
    return created;
  }

  private async purge(now: Date, report: RetentionReport): Promise<void> {
    const cutoff = retentionCutoff(now, this.config.RETENTION_DAYS);
    let lateRows = 0;
    const partitions = await this.repository.partitions('deliveries');
    for (const week of partitionsDue(partitions, cutoff)) {
      const holds = await this.repository.weekHolds(week, cutoff);
      if (holds.held === 0) {
        const started = Date.now();
        const dropped = await this.ddl(`drop ${week.name}`, () => this.repository.dropWeek(week, cutoff));
        if (!dropped) continue; // busy, or held after all: next run
        const { notifications, deliveries, events } = dropped;
        report.weeksDropped.push(week.name);
        report.deliveriesDeleted += deliveries;
        report.eventsDeleted += events;
        this.logger.log(
          `Retention: dropped ${week.name} and ${eventsPartitionOf(week.name)}: ${notifications} notifications, ` +
            `about ${deliveries} deliveries and ${events} events, in ${Date.now() - started} ms`,
        );
        continue;
      }
      report.weeksKept.push(week.name);
      if (!heldTooLong(week, cutoff) || lateRows >= LATE_ROWS_PER_RUN) {
        this.logger.debug(`Retention: ${week.name} kept by ${holds.held} of its ${holds.notifications} notifications`);
        continue;
      }
      lateRows += await this.deleteExpired(week, cutoff, LATE_ROWS_PER_RUN - lateRows, report);
    }
    // An event reported for a dropped week meanwhile finds no delivery: 422 rather than 404, for milliseconds.
    const remaining = partitions.filter((p) => !report.weeksDropped.includes(p.name));
    report.notificationsDeleted += await this.repository.deleteUncovered(cutoff, remaining);
    report.webhookMessagesDeleted = await this.deleteInStatements('finished webhook messages', (limit) =>
      this.repository.deleteFinishedWebhookMessages(cutoff, limit),
    );
    report.broadcastsDeleted = await this.deleteInStatements('finished Live Activity broadcasts', (limit) =>
      this.repository.deleteFinishedBroadcasts(cutoff, limit),
    );
  }

  /** Runs a bounded DELETE until it deletes fewer than a statement's rows or the run's budget is spent; how many. */
  private async deleteInStatements(what: string, deleteSome: (limit: number) => Promise<number>): Promise<number> {
    let deleted = 0;
    while (deleted < LATE_ROWS_PER_RUN) {
      const rows = await deleteSome(ROWS_PER_STATEMENT);
      deleted += rows;
      if (rows < ROWS_PER_STATEMENT) break;
    }
    if (deleted > 0) this.logger.log(`Retention: deleted ${deleted} ${what}`);
    return deleted;
  }

  /** Expired notifications of a week a late one holds too long, deleted row by row up to `budget`. */
  private async deleteExpired(week: PartitionRange, cutoff: Date, budget: number, report: RetentionReport): Promise<number> {
    let rows = 0;
    let notifications = 0;
    const before = { deliveries: report.deliveriesDeleted, events: report.eventsDeleted };
    for (const id of await this.repository.expiredInWeek(week, cutoff, LATE_NOTIFICATIONS_PER_RUN)) {
      let finished = true;
      for (const table of PARTITIONED_TABLES) {
        for (;;) {
          if (rows >= budget) {
            finished = false;
            break;
          }
          const deleted = await this.repository.deleteRows(table, id, Math.min(ROWS_PER_STATEMENT, budget - rows));
          rows += deleted;
          if (table === 'deliveries') report.deliveriesDeleted += deleted;
          else report.eventsDeleted += deleted;
          if (deleted === 0) break;
        }
      }
      if (!finished) break;
      await this.repository.deleteNotification(id);
      notifications++;
    }
    report.notificationsDeleted += notifications;
    this.logger.log(
      `Retention: ${week.name} is held by a late notification; deleted ${notifications} expired notifications, ` +
        `${report.deliveriesDeleted - before.deliveries} deliveries and ${report.eventsDeleted - before.events} events row by row`,
    );
    return rows;
  }

  private async ddl<T>(what: string, run: () => Promise<T>): Promise<T | null> {
    try {
      return await run();
    } catch (error) {
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
      this.logger.warn(`Retention: could not ${what} now (tables busy); trying again at the next run`);
      return null;
    }
  }
}
