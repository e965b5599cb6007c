import { Redis } from 'ioredis';
import { TEST_REDIS_URL, withAdminClient } from './services';

/**
 * Fails fast, with the command to fix it, when PostgreSQL or Redis is not running; drops the
 * databases that earlier interrupted runs left behind.
 */
export default async function globalSetup(): Promise<void> {
  try {
    await withAdminClient(async (client) => {
      const { rows } = await client.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE 'push\\_test\\_%'`,
      );
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    });
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable (${(error as Error).message}). Start it, e.g. 'docker compose up -d postgres'.`);
  }
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Redis is not reachable (${(error as Error).message}). Start it, e.g. 'docker compose up -d redis'.`);
  } finally {
    redis.disconnect();
  }
}
