import { resolve } from 'node:path';
import { loadDotEnv } from '../../config/env';
import { openEmbeddedDatabase } from './embedded-server';

/**
 * DATABASE_URL=embedded (docs/operations.md "Embedded PostgreSQL"): joins or starts the PostgreSQL of
 * PNS_DATA_DIR and puts its real URL into DATABASE_URL, before anything reads the configuration.
 * Returns the line to log, or undefined for any other DATABASE_URL.
 */
export async function resolveDatabaseUrl(): Promise<string | undefined> {
  loadDotEnv();
  if (process.env.DATABASE_URL?.trim() !== 'embedded') return undefined;
  const database = await openEmbeddedDatabase(resolve(process.env.PNS_DATA_DIR || '.pns'));
  process.env.DATABASE_URL = database.url;
  return database.summary;
}
