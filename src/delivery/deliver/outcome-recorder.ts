import { Injectable } from '@nestjs/common';
import { retryingDeadlocks } from '../../common/pg-errors';
import { CompletionReportService } from '../completion-report.service';
import { DeliveriesRepository, DeliveryRecord } from './deliveries.repository';
import { StoreOutage } from './store-outage';

/**
 * How long an outcome may wait before it is written, and how many make a write on their own. A
 * worker killed mid-send sends again what it had not recorded: the requests in flight, plus at most
 * this much. docs/operations.md ("What a worker crash sends twice") says why these values.
 */
export const FLUSH_INTERVAL_MS = 100;
export const FLUSH_SIZE = 100;

/** A deadlock (two workers' statements meeting on notification rows) is retried at once, this often. */
const DEADLOCK_RETRIES = 5;

interface Group {
  records: DeliveryRecord[];
  openedAt: number;
  /** A small send's outcome is in it: written as soon as no other write is in progress. */
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

/**
 * Writes delivery outcomes as they come, for every job of this worker process: one statement
 * (DeliveriesRepository.recordOutcomes) per FLUSH_INTERVAL_MS or per FLUSH_SIZE outcomes, whichever
 * comes first, one write at a time.
 */
@Injectable()
export class OutcomeRecorder {
  private open = openGroup();
  private writing = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly outage: StoreOutage,
    private readonly completions: CompletionReportService,
  ) {}

  /**
   * Queues an outcome; the promise settles once it is written (with the others of its write).
   * `urgent` (a small send's) writes at once: its job holds one of the few deliver-small slots.
   */
  record(record: DeliveryRecord, urgent = false): Promise<void> {
    const group = this.open;
    if (group.records.length === 0) group.openedAt = Date.now();
    group.records.push(record);
    if (urgent) group.urgent = true;
    this.schedule();
    return group.written;
  }

  /** Writes now if the open group is full or old enough, else arms the timer for when it will be. */
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
        this.schedule();
      });
  }

  /** Writes a group; answers the notifications it completed (for their completion log line). */
  private recordRetryingDeadlocks(records: DeliveryRecord[]): Promise<string[]> {
    return retryingDeadlocks(() => this.deliveries.recordOutcomes(records), DEADLOCK_RETRIES);
  }
}
