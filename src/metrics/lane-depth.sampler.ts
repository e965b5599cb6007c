import { Injectable, Logger } from '@nestjs/common';
import { EnvironmentVariables } from '../config/env';
import { LaneDepthRepository } from './lane-depth.repository';
import { MetricsService } from './metrics.service';

const LANES = ['transactional', 'marketing'] as const;
const SAMPLE_TIMEOUT_MS = 1_000;

/** Batches queued and held per lane, and sends per fan-out window, on scrape; per app too with METRICS_APP_LABELS (docs/operations.md "Fair shares"). */
@Injectable()
export class LaneDepthSampler {
  private readonly logger = new Logger(LaneDepthSampler.name);

  constructor(
    private readonly lanes: LaneDepthRepository,
    private readonly metrics: MetricsService,
    private readonly config: EnvironmentVariables,
  ) {}

  async sample(now = Date.now()): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const depths = await Promise.race([
        this.lanes.depths(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from PostgreSQL within ${SAMPLE_TIMEOUT_MS} ms`)), SAMPLE_TIMEOUT_MS);
        }),
      ]);
      // Apps come and go: their series are rebuilt on every scrape.
      this.reset();
      const byApp = this.config.METRICS_APP_LABELS;
      const oldest = (at: Date | null) => (at === null ? 0 : Math.max(0, now - at.getTime()) / 1000);
      for (const lane of LANES) {
        const rows = depths.filter((row) => row.lane === lane);
        this.metrics.laneBatches.set({ lane, state: 'queued' }, sum(rows.map((row) => row.queued)));
        this.metrics.laneBatches.set({ lane, state: 'held' }, sum(rows.map((row) => row.held)));
        this.metrics.laneOldestHeldAge.set({ lane }, Math.max(0, ...rows.map((row) => oldest(row.oldest_held_at))));
        if (!byApp) continue;
        for (const row of rows) {
          this.metrics.laneBatches.set({ lane, state: 'queued', app: row.app_id }, row.queued);
          this.metrics.laneBatches.set({ lane, state: 'held', app: row.app_id }, row.held);
          this.metrics.laneOldestHeldAge.set({ lane, app: row.app_id }, oldest(row.oldest_held_at));
        }
      }
      // The apps' fan-out windows (docs/decisions/0037-fan-out-windows.md).
      const fanouts = depths.filter((row) => row.lane === 'fanout');
      this.metrics.fanoutSends.set({ state: 'queued' }, sum(fanouts.map((row) => row.queued)));
      this.metrics.fanoutSends.set({ state: 'held' }, sum(fanouts.map((row) => row.held)));
      this.metrics.fanoutOldestHeldAge.set({}, Math.max(0, ...fanouts.map((row) => oldest(row.oldest_held_at))));
      if (byApp) {
        for (const row of fanouts) {
          this.metrics.fanoutSends.set({ state: 'queued', app: row.app_id }, row.queued);
          this.metrics.fanoutSends.set({ state: 'held', app: row.app_id }, row.held);
          this.metrics.fanoutOldestHeldAge.set({ app: row.app_id }, oldest(row.oldest_held_at));
        }
      }
    } catch (error) {
      this.reset();
      this.logger.warn(`Could not sample the lanes: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private reset(): void {
    for (const gauge of [this.metrics.laneBatches, this.metrics.laneOldestHeldAge, this.metrics.fanoutSends, this.metrics.fanoutOldestHeldAge]) gauge.reset();
  }
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
