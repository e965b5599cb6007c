// The template's migrations read the configuration, as the test files do: the same environment.
import './setup-env';
import { Redis } from 'ioredis';
import { TEST_QUEUE_BACKEND, TEST_REDIS_URL, withAdminClient } from './services';
import { createTemplateDatabase, TEMPLATE_DATABASE_ENV, testDatabaseCreatedAt } from './test-database';

/** No test file runs this long: an older test database was left behind by an interrupted run. */
const LEFT_BEHIND_AFTER_MS = 3 * 60 * 60_000;

/**
 * Fails fast, with the command to fix it, when PostgreSQL or Redis is not running; drops the
 * databases that earlier interrupted runs left behind (and that no running test uses); migrates
 * the run's template database, which every test database of the run copies. The integration and
 * e2e projects both name this file, and Jest runs it once per run; the test files, started after
 * it, inherit the environment variable that names the template.
 */
export default async function globalSetup(): Promise<void> {
  try {
    await withAdminClient(async (client) => {
      // Only databases nobody is connected to: another jest run on the same server (a second
      // terminal, a benchmark) keeps its own connections open, and must not lose its databases.
      const { rows } = await client.query<{ datname: string }>(
        `SELECT d.datname FROM pg_database d
         WHERE d.datname LIKE 'push\\_test\\_%'
           AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)`,
      );
      for (const { datname } of rows) {
        // Another run's file may be between two tests, connected to nothing: only old ones go.
        const created = testDatabaseCreatedAt(datname);
        if (created && Date.now() - created.getTime() < LEFT_BEHIND_AFTER_MS) continue;
        // Without FORCE: a database someone connected to meanwhile stays.
        await client.query(`DROP DATABASE IF EXISTS "${datname}"`).catch(() => undefined);
      }
    });
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable (${(error as Error).message}). Start it, e.g. 'docker compose up -d postgres'.`, { cause: error });
  }
  if (TEST_QUEUE_BACKEND === 'redis') await redisAnswers();
  process.env[TEMPLATE_DATABASE_ENV] = await createTemplateDatabase();
}

async function redisAnswers(): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Redis is not reachable (${(error as Error).message}). Start it, e.g. 'docker compose up -d redis'.`, { cause: error });
  } finally {
    redis.disconnect();
  }
}
