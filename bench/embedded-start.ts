import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedDatabase } from '../src/database/embedded/embedded-server';

export interface EmbeddedStart {
  /** initdb and the first start, in an empty PNS_DATA_DIR. */
  coldMs: number;
  /** A start over the data the cold one left. */
  warmMs: number;
}

/** DATABASE_URL=embedded's own start-up, each start stopped before the next (docs/operations.md "Embedded PostgreSQL"). */
export async function measureEmbeddedStart(): Promise<EmbeddedStart> {
  const dir = mkdtempSync(join(tmpdir(), 'pns-bench-embedded-'));
  // Under root the server runs as its own user, which must be able to enter the folder.
  chmodSync(dir, 0o711);
  const timed = async () => {
    const started = performance.now();
    const database = await openEmbeddedDatabase(join(dir, 'data'));
    const ms = Math.round(performance.now() - started);
    database.release();
    return ms;
  };
  try {
    const coldMs = await timed();
    return { coldMs, warmMs: await timed() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const embeddedStartLine = ({ coldMs, warmMs }: EmbeddedStart) =>
  `embedded PostgreSQL start (DATABASE_URL=embedded): cold ${coldMs} ms (initdb + start), warm ${warmMs} ms`;
