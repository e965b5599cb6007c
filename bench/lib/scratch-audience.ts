import { Client } from 'pg';
import { createTestDatabase, dropTestDatabase, testDatabaseName } from '../../test/support/test-database';
import { seedAudience } from './audience-seed';

/**
 * Runs `work` on a scratch database (migrated, dropped after) holding one app with `installations`
 * installations seeded as the audiences scenario does (bench/lib/audience-seed.ts).
 */
export async function withScratchAudience(
  prefix: string,
  installations: number,
  log: (line: string) => void,
  work: (client: Client, appId: string) => Promise<void>,
): Promise<void> {
  const name = testDatabaseName(prefix);
  const { url } = await createTestDatabase(name);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const [{ id: appId }] = (await client.query<{ id: string }>(`INSERT INTO apps (name) VALUES ('bench') RETURNING id`)).rows;
    log(`seeding ${installations} installations`);
    for (let first = 1; first <= installations; first += 200_000) {
      await seedAudience(client, appId, Math.min(200_000, installations - first + 1), first);
    }
    await work(client, appId);
  } finally {
    await client.end();
    await dropTestDatabase(name);
  }
}
