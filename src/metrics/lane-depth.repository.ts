import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

export interface LaneDepth {
  app_id: string;
  /** `transactional` or `marketing` (delivery batches), or `fanout` (sends in the app's fan-out window). */
  lane: string;
  queued: number;
  held: number;
  /** When the oldest held batch was held, or null when none is. */
  oldest_held_at: Date | null;
}

/** What every app's lanes and fan-out window hold (docs/api.md#fair-sharing), for `pns_lane_*` and `pns_fanout_*`. */
@SqlFile('lane-depth.repository.sql')
@Injectable()
export class LaneDepthRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Rows exist only for batches and fan-outs queued or held, so this reads two small tables. */
  @GenerateSql({ params: [] })
  async depths(): Promise<LaneDepth[]> {
    const rows: (Omit<LaneDepth, 'queued' | 'held'> & { queued: string; held: string })[] = await this.db.query(
      `SELECT app_id, lane, count(*) FILTER (WHERE queued_at IS NOT NULL) AS queued, count(*) FILTER (WHERE queued_at IS NULL) AS held,
              min(created_at) FILTER (WHERE queued_at IS NULL) AS oldest_held_at
       FROM fair_share_batches GROUP BY app_id, lane
       UNION ALL
       SELECT app_id, 'fanout', count(*) FILTER (WHERE queued_at IS NOT NULL), count(*) FILTER (WHERE queued_at IS NULL),
              min(created_at) FILTER (WHERE queued_at IS NULL)
       FROM fair_share_fanouts GROUP BY app_id`,
    );
    return rows.map((row) => ({ ...row, queued: Number(row.queued), held: Number(row.held) }));
  }
}
