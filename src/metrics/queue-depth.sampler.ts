import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
import { EnvironmentVariables } from '../config/env';
import { QueueInspector } from '../queue/queue-inspector';
import { MetricsService } from './metrics.service';

/** A paused queue keeps its jobs in `waiting`. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed', 'completed'] as const;
const SAMPLE_TIMEOUT_MS = 1_000;

interface QueueSample {
  name: string;
  counts: Record<string, number>;
  /** When the oldest waiting job became due (epoch ms), or undefined when none waits. */
  oldestDueAt?: number;
}

/**
 * Job counts and the oldest waiting job's age on scrape; emptied when the queue store does not answer, so an `absent()`
 * alert can fire. Redis's `pns_dependency_up` comes from here; with QUEUE_BACKEND=postgres the store is the database,
 * which DatabaseSampler reports, and no Redis series is written.
 */
@Injectable()
export class QueueDepthSampler {
  private readonly logger = new Logger(QueueDepthSampler.name);

  constructor(
    private readonly inspector: QueueInspector,
    private readonly metrics: MetricsService,
    private readonly config: EnvironmentVariables,
  ) {}

  private storeUp(up: 0 | 1): void {
    if (this.config.QUEUE_BACKEND === 'redis') this.metrics.dependencyUp.set({ dependency: 'redis' }, up);
  }

  async sample(now = Date.now()): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const samples = await Promise.race([
        Promise.all(this.inspector.sampled().map((queue) => sampleQueue(queue))),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from the queue store within ${SAMPLE_TIMEOUT_MS} ms`)), SAMPLE_TIMEOUT_MS);
        }),
      ]);
      for (const { name, counts, oldestDueAt } of samples) {
        for (const state of QUEUE_STATES) this.metrics.queueDepth.set({ queue: name, state }, counts[state] ?? 0);
        this.metrics.queueOldestAge.set({ queue: name }, oldestDueAt === undefined ? 0 : Math.max(0, now - oldestDueAt) / 1000);
      }
      this.storeUp(1);
    } catch (error) {
      this.metrics.queueDepth.reset();
      this.metrics.queueOldestAge.reset();
      this.storeUp(0);
      this.logger.warn(`Could not sample queue depth: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

async function sampleQueue(queue: Queue): Promise<QueueSample> {
  // BullMQ's waiting list, oldest first: the job that has waited longest since it was added or became due.
  const [counts, [oldest]] = await Promise.all([queue.getJobCounts(...QUEUE_STATES), queue.getWaiting(0, 0)]);
  return { name: queue.name, counts, oldestDueAt: oldest ? oldest.timestamp + (oldest.delay ?? 0) : undefined };
}
