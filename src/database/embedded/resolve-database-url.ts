import { resolve } from 'node:path';
import { loadDotEnv } from '../../config/env';
import { openEmbeddedDatabase } from './embedded-server';

/** DATABASE_URL=embedded (docs/operations.md "Embedded PostgreSQL") becomes the real URL before anything reads it; returns the line to log. */
export async function resolveDatabaseUrl(): Promise<string | undefined> {
  loadDotEnv();
  if (process.env.DATABASE_URL?.trim() !== 'embedded') return undefined;
  const database = await openEmbeddedDatabase(resolve(process.env.PNS_DATA_DIR || '.pns'));
  process.env.DATABASE_URL = database.url;
  return database.summary;
}
