import { Client } from 'pg';
import { Redis } from 'ioredis';

export const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * The queue backend of this test run: QUEUE_BACKEND=postgres in the environment runs the test
 * apps and the spawned services on PostgreSQL queues (test/postgres-queues.txt, `.ci/run`), where
 * each test's queues live in its own database and no Redis is needed.
 */
export const TEST_QUEUE_BACKEND: 'redis' | 'postgres' = process.env.QUEUE_BACKEND === 'postgres' ? 'postgres' : 'redis';

/** `postgres://.../<name>` on the same server as the admin URL. */
export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withAdminClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Deletes every key under a BullMQ prefix; on PostgreSQL queues nothing (they go with the test's database). */
export async function deleteRedisPrefix(prefix: string): Promise<void> {
  if (TEST_QUEUE_BACKEND === 'postgres') return;
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
