import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { REASONED_ENDS } from '../common/vocabulary';
import { GenerateSql, SqlFile } from '../queries/generate-sql';
import { ID } from '../queries/fixtures';

/** A completed notification's counters and how many deliveries ended with each failure or skip reason. */
export interface CompletionSummaryRow {
  app_id: string;
  installations: number;
  accepted: number;
  failed: number;
  skipped: number;
  /** From acceptance to completion. */
  duration_ms: number;
  /** Most frequent first. */
  reasons: { status: (typeof REASONED_ENDS)[number]; reason: string; count: number }[];
}

/**
 * What the completion log line reports (completion-report.service.ts): read once per notification,
 * when it completes, from its row and its deliveries (through their notification index).
 */
@Injectable()
@SqlFile('completion-report.repository.sql')
export class CompletionReportRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql({ params: [ID] })
  async summary(notificationId: string): Promise<CompletionSummaryRow | undefined> {
    const [row]: CompletionSummaryRow[] = await this.db.query(
      `SELECT n.app_id, n.stat_installations AS installations, n.stat_accepted AS accepted, n.stat_failed AS failed,
         n.stat_skipped AS skipped, (extract(epoch FROM n.completed_at - n.created_at) * 1000)::float8 AS duration_ms,
         COALESCE((SELECT jsonb_agg(jsonb_build_object('status', r.status, 'reason', r.reason, 'count', r.count) ORDER BY r.count DESC, r.reason)
                   FROM (SELECT d.status, COALESCE(d.reason, 'Unknown') AS reason, count(*)::int AS count FROM deliveries d
                         WHERE d.notification_id = n.id AND d.status = ANY($2::text[])
                         GROUP BY 1, 2) r), '[]'::jsonb) AS reasons
       FROM notifications n WHERE n.id = $1`,
      [notificationId, REASONED_ENDS],
    );
    return row;
  }
}
