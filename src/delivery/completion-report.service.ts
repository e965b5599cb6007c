import { Injectable, Logger } from '@nestjs/common';
import { CompletionReportRepository } from './completion-report.repository';

/** Reasons named per kind in the line; the rest are summed up as `other`. */
const TOP_REASONS = 5;

type ReasonCount = { reason: string; count: number };

/**
 * One JSON log line per notification when it completes (docs/operations.md "Logs"): its counters
 * and its most frequent failure and skip reasons, so failures are visible without SQL. Warn level
 * when something failed, info otherwise (both shown at the default LOG_LEVEL).
 */
@Injectable()
export class CompletionReportService {
  private readonly logger = new Logger(CompletionReportService.name);

  constructor(private readonly reports: CompletionReportRepository) {}

  /**
   * Logs each notification the caller has just completed. Never throws: the completion is
   * committed, and a report that cannot be read must not fail (and retry) the job that made it.
   */
  async completed(notificationIds: readonly string[]): Promise<void> {
    for (const id of notificationIds) {
      try {
        const summary = await this.reports.summary(id);
        if (!summary) continue;
        const byKind = (status: 'failed' | 'skipped') => top(summary.reasons.filter((r) => r.status === status));
        const line = {
          msg: 'Notification completed',
          notification_id: id,
          app_id: summary.app_id,
          installations: summary.installations,
          accepted: summary.accepted,
          failed: summary.failed,
          skipped: summary.skipped,
          duration_ms: Math.round(summary.duration_ms),
          failure_reasons: byKind('failed'),
          skip_reasons: byKind('skipped'),
        };
        if (summary.failed > 0) this.logger.warn(line);
        else this.logger.log(line);
      } catch (error) {
        this.logger.warn(`Notification ${id} completed; its report could not be read: ${(error as Error).message}`);
      }
    }
  }
}

/** The TOP_REASONS most frequent reasons (the input is sorted), then the rest as `other`. */
function top(reasons: ReasonCount[]): ReasonCount[] {
  const named = reasons.slice(0, TOP_REASONS).map(({ reason, count }) => ({ reason, count }));
  const rest = reasons.slice(TOP_REASONS).reduce((sum, r) => sum + r.count, 0);
  return rest > 0 ? [...named, { reason: 'other', count: rest }] : named;
}
