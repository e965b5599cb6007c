import { Queue } from 'bullmq';
import { DELIVER_QUEUE, FANOUT_QUEUE } from '../../src/common/queues';
import { redisOptionsFromUrl } from '../../src/config/redis-options';
import { postgresQueueConnection, queueBackendFactory } from '../../src/queue/queue-backend';
import { TEST_QUEUE_BACKEND, TEST_REDIS_URL } from './services';
import { waitFor } from './wait-for';

/** What locates a test's queues: its prefix, and on PostgreSQL queues its database. */
export interface QueueStores {
  queuePrefix: string;
  databaseUrl?: string;
}

/** A read-side handle on one of the test's queues, on the run's backend (TEST_QUEUE_BACKEND), as the service opens it. */
export function testQueue({ queuePrefix, databaseUrl }: QueueStores, name: string): Queue {
  if (TEST_QUEUE_BACKEND === 'redis') {
    return new Queue(name, { connection: { ...redisOptionsFromUrl(process.env.REDIS_URL ?? TEST_REDIS_URL), maxRetriesPerRequest: 1 }, prefix: queuePrefix });
  }
  if (!databaseUrl) throw new Error('On QUEUE_BACKEND=postgres a test queue needs the test database (databaseUrl)');
  const config = { DATABASE_URL: databaseUrl, QUEUE_PREFIX: queuePrefix, APP_MODE: 'all', REDIS_URL: TEST_REDIS_URL, QUEUE_BACKEND: 'postgres' } as const;
  return new Queue(name, { connection: postgresQueueConnection(config, 'producer'), prefix: queuePrefix }, queueBackendFactory(config) as never);
}

/** Job states in which a queue still has work to do. */
const BUSY_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

/**
 * Waits until the fan-out and delivery queues under `queuePrefix` have had no waiting, active or
 * delayed job for `quietMs` (a job may queue another as it ends, so one empty look is not
 * enough), as Twenty's integration tests wait for their queues. It reads the queues directly, so it
 * also sees jobs of worker processes the test started. The maintenance queue is left out: the
 * sweeper's schedule is always delayed there.
 */
export async function waitForQueues(
  stores: QueueStores,
  { timeoutMs = 20_000, quietMs = 300, queues = [FANOUT_QUEUE, DELIVER_QUEUE] }: { timeoutMs?: number; quietMs?: number; queues?: string[] } = {},
): Promise<void> {
  const handles = queues.map((name) => testQueue(stores, name));
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
export async function promoteDelayedJobs(stores: QueueStores, queue: string): Promise<void> {
  const handle = testQueue(stores, queue);
  try {
    await handle.promoteJobs();
  } finally {
    await handle.close();
  }
}
