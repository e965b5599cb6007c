// `npm test` runs this before building: PostgreSQL, Redis and Chromium, each asked within a few
// seconds, so a missing one stops the run at once with one line saying how to get it, instead of
// failing tests minutes later. The tests' own settings: test/support/services.ts and chromium.ts.
import { existsSync } from 'node:fs';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { CHROMIUM } from '../test/support/chromium';
import { ADMIN_DATABASE_URL, TEST_REDIS_URL } from '../test/support/services';

const TIMEOUT_MS = 3000;

const reason = (error: unknown) => {
  const { code, message } = error as { code?: string; message?: string };
  return code ?? message ?? String(error);
};

async function postgres(): Promise<string | null> {
  const url = new URL(ADMIN_DATABASE_URL);
  const client = new Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: TIMEOUT_MS });
  try {
    await client.connect();
    return null;
  } catch (error) {
    return (
      `PostgreSQL is not reachable at ${url.host} as user ${decodeURIComponent(url.username) || 'postgres'} (${reason(error)}): ` +
      `start it (apt-get install postgresql, or docker compose up -d postgres) with trust auth for that user, or set TEST_DATABASE_ADMIN_URL.`
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redis(): Promise<string | null> {
  const client = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // The socket's own error (ECONNREFUSED) says more than the rejection ("Connection is closed.").
  let socketError: unknown;
  client.on('error', (error) => (socketError ??= error));
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return `Redis is not reachable at ${TEST_REDIS_URL} (${reason(socketError ?? error)}): start it (apt-get install redis-server, or docker compose up -d redis), or set REDIS_URL.`;
  } finally {
    client.disconnect();
  }
}

function chromium(): string | null {
  return existsSync(CHROMIUM) ? null : `Chromium is missing at ${CHROMIUM} (the browser tests drive it): apt-get install chromium, or set CHROMIUM_PATH.`;
}

void (async () => {
  const problems = (await Promise.all([postgres(), redis()])).concat(chromium()).filter((problem) => problem !== null);
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  process.exit(problems.length > 0 ? 1 : 0);
})();
