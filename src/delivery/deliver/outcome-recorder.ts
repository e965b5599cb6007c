import { Injectable, Logger } from '@nestjs/common';
import { retryingDeadlocks } from '../../common/pg-errors';
import { CompletionReportService } from '../completion-report.service';
import { DeliveriesRepository, DeliveryRecord } from './deliveries.repository';
import { StoreOutage } from './store-outage';

/** A crash re-sends what is in flight and what is not yet written: docs/operations.md ("What a worker crash sends twice"). */
export const FLUSH_INTERVAL_MS = 100;
export const FLUSH_SIZE = 100;
export const MAX_UNRECORDED = 500;

const DEADLOCK_RETRIES = 5;

interface Group {
  records: DeliveryRecord[];
  openedAt: number;
  urgent?: boolean;
  written: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function openGroup(): Group {
  const group = { records: [] } as unknown as Group;
  group.written = new Promise<void>((resolve, reject) => {
    group.resolve = resolve;
    group.reject = reject;
  });
  // A job awaits its groups once its sends are done; one that failed meanwhile is not "unhandled".
  group.written.catch(() => undefined);
  return group;
}

/** Writes the outcomes of every job of this process: one statement per FLUSH_INTERVAL_MS or FLUSH_SIZE, one at a time. */
@Injectable()
export class OutcomeRecorder {
  private readonly logger = new Logger(OutcomeRecorder.name);
  private open = openGroup();
  private writing = false;
  private timer: NodeJS.Timeout | undefined;
  private unrecorded = 0;
  private waiters: (() => void)[] = [];
  private warnedAt = 0;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly outage: StoreOutage,
    private readonly completions: CompletionReportService,
  ) {}

  /** Settles once written; `urgent` (a small send's, whose job holds a scarce slot) writes at once. */
  record(record: DeliveryRecord, urgent = false): Promise<void> {
    this.unrecorded++;
    const group = this.open;
    if (group.records.length === 0) group.openedAt = Date.now();
    group.records.push(record);
    if (urgent) group.urgent = true;
    this.schedule();
    return group.written;
  }

  /** Resolves once fewer than MAX_UNRECORDED outcomes wait to be written; a provider send awaits it first. */
  room(): Promise<void> | undefined {
    if (this.unrecorded < MAX_UNRECORDED) return undefined;
    if (this.waiters.length === 0 && Date.now() - this.warnedAt >= 60_000) {
      this.warnedAt = Date.now();
      this.logger.warn(`${this.unrecorded} outcomes not yet written: sending waits for the database`);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private schedule(): void {
    const group = this.open;
    if (this.writing || group.records.length === 0) return;
    const wait = group.records.length >= FLUSH_SIZE || group.urgent ? 0 : FLUSH_INTERVAL_MS - (Date.now() - group.openedAt);
    if (wait <= 0) {
      this.write();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.schedule();
      }, wait);
    }
  }

  private write(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const group = this.open;
    this.open = openGroup();
    this.writing = true;
    this.outage
      .retrying('recording outcomes', () => this.recordRetryingDeadlocks(group.records))
      .then((completed) => {
        group.resolve();
        // Read and logged beside the writes, not between them: the next write need not wait.
        if (completed.length > 0) void this.completions.completed(completed);
      }, group.reject)
      .finally(() => {
        this.writing = false;
        this.unrecorded -= group.records.length;
        if (this.unrecorded < MAX_UNRECORDED) for (const resume of this.waiters.splice(0)) resume();
        this.schedule();
      });
  }

  private recordRetryingDeadlocks(records: DeliveryRecord[]): Promise<string[]> {
    return retryingDeadlocks(() => this.deliveries.recordOutcomes(records), DEADLOCK_RETRIES);
  }
}
