import { Injectable, Logger } from '@nestjs/common';
import { Queue } from 'bullmq';
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

/** Job counts and the oldest waiting job's age on scrape; emptied when Redis does not answer, so an `absent()` alert can fire. */
@Injectable()
export class QueueDepthSampler {
  private readonly logger = new Logger(QueueDepthSampler.name);

  constructor(
    private readonly inspector: QueueInspector,
    private readonly metrics: MetricsService,
  ) {}

  async sample(now = Date.now()): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const samples = await Promise.race([
        Promise.all(this.inspector.sampled().map((queue) => sampleQueue(queue))),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from Redis within ${SAMPLE_TIMEOUT_MS} ms`)), SAMPLE_TIMEOUT_MS);
        }),
      ]);
      for (const { name, counts, oldestDueAt } of samples) {
        for (const state of QUEUE_STATES) this.metrics.queueDepth.set({ queue: name, state }, counts[state] ?? 0);
        this.metrics.queueOldestAge.set({ queue: name }, oldestDueAt === undefined ? 0 : Math.max(0, now - oldestDueAt) / 1000);
      }
      this.metrics.dependencyUp.set({ dependency: 'redis' }, 1);
    } catch (error) {
      this.metrics.queueDepth.reset();
      this.metrics.queueOldestAge.reset();
      this.metrics.dependencyUp.set({ dependency: 'redis' }, 0);
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
