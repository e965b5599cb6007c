import { Injectable, Logger } from '@nestjs/common';
import { QueueInspector } from '../queue/queue-inspector';
import { MetricsService } from './metrics.service';

/** A paused queue keeps its jobs in `waiting`. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed', 'completed'] as const;
const SAMPLE_TIMEOUT_MS = 1_000;

/** Job counts into the gauge on scrape; emptied when Redis does not answer, so an `absent()` alert can fire. */
@Injectable()
export class QueueDepthSampler {
  private readonly logger = new Logger(QueueDepthSampler.name);

  constructor(
    private readonly inspector: QueueInspector,
    private readonly metrics: MetricsService,
  ) {}

  async sample(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const counts = await Promise.race([
        Promise.all(this.inspector.queues().map(async (queue) => ({ name: queue.name, counts: await queue.getJobCounts(...QUEUE_STATES) }))),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from Redis within ${SAMPLE_TIMEOUT_MS} ms`)), SAMPLE_TIMEOUT_MS);
        }),
      ]);
      for (const { name, counts: byState } of counts) {
        for (const state of QUEUE_STATES) this.metrics.queueDepth.set({ queue: name, state }, byState[state] ?? 0);
      }
    } catch (error) {
      this.metrics.queueDepth.reset();
      this.logger.warn(`Could not sample queue depth: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}
