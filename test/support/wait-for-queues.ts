import { Queue } from 'bullmq';
import { DELIVER_QUEUE, FANOUT_QUEUE } from '../../src/common/queues';
import { redisOptionsFromUrl } from '../../src/config/redis-options';
import { TEST_REDIS_URL } from './services';
import { waitFor } from './wait-for';

/** Job states in which a queue still has work to do. */
const BUSY_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

/**
 * Waits until the fan-out and delivery queues under `queuePrefix` have had no waiting, active or
 * delayed job for `quietMs` (a job may queue another as it ends, so one empty look is not
 * enough), as Twenty's integration tests wait for their queues. It reads Redis directly, so it
 * also sees jobs of worker processes the test started. The maintenance queue is left out: the
 * sweeper's schedule is always delayed there.
 */
export async function waitForQueues(
  { queuePrefix }: { queuePrefix: string },
  { timeoutMs = 20_000, quietMs = 300, queues = [FANOUT_QUEUE, DELIVER_QUEUE] }: { timeoutMs?: number; quietMs?: number; queues?: string[] } = {},
): Promise<void> {
  const connection = { ...redisOptionsFromUrl(process.env.REDIS_URL ?? TEST_REDIS_URL), maxRetriesPerRequest: 1 };
  const handles = queues.map((name) => new Queue(name, { connection, prefix: queuePrefix }));
  try {
    let quietSince: number | undefined;
    await waitFor(
      async () => {
        const counts = await Promise.all(handles.map((queue) => queue.getJobCounts(...BUSY_STATES)));
        if (counts.some((count) => Object.values(count).some((n) => n > 0))) {
          quietSince = undefined;
          return false;
        }
        quietSince ??= Date.now();
        return Date.now() - quietSince >= quietMs;
      },
      `the ${queues.join(' and ')} queues to be idle`,
      timeoutMs,
    );
  } finally {
    await Promise.all(handles.map((queue) => queue.close()));
  }
}

/**
 * Moves the delayed jobs of `queue` under `queuePrefix` to now (BullMQ's promote), the queue's
 * way of moving the clock: a retry due in seconds runs at once, and a test need not wait for it.
 */
export async function promoteDelayedJobs({ queuePrefix }: { queuePrefix: string }, queue: string): Promise<void> {
  const handle = new Queue(queue, {
    connection: { ...redisOptionsFromUrl(process.env.REDIS_URL ?? TEST_REDIS_URL), maxRetriesPerRequest: 1 },
    prefix: queuePrefix,
  });
  try {
    await handle.promoteJobs();
  } finally {
    await handle.close();
  }
}
