import { Logger } from '@nestjs/common';
import { Client } from 'pg';

export class DatabaseUnreachableError extends Error {}

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5_000;

export function describeDatabase(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}

/** In words an operator can act on: no stack, no password. */
export function connectFailure(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  if (code === '3D000') return `${message} (create it: \`npx pns setup\` does)`;
  if (code === '28P01' || code === '28000') return `${message} (check the user and password in DATABASE_URL)`;
  return code && message && !message.includes(code) ? `${code}: ${message}` : (message ?? String(error));
}

/** Waits for PostgreSQL (containers start in any order), retrying every failure with backoff, one line per new reason. */
export async function waitForDatabase(url: string, timeoutMs: number, logger = new Logger('Database')): Promise<void> {
  const started = Date.now();
  const where = describeDatabase(url);
  let delay = FIRST_DELAY_MS;
  let lastReason: string | undefined;
  for (;;) {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: Math.min(5_000, Math.max(timeoutMs, 1_000)) });
    // A connection that fails later would otherwise emit an unhandled 'error'.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      if (lastReason !== undefined) logger.log(`PostgreSQL at ${where} reachable after ${Math.round((Date.now() - started) / 1000)} s`);
      return;
    } catch (error) {
      void client.end().catch(() => undefined);
      const reason = connectFailure(error);
      const elapsed = Date.now() - started;
      if (elapsed + delay > timeoutMs) {
        throw new DatabaseUnreachableError(
          `PostgreSQL at ${where} not reachable after ${Math.round(elapsed / 1000)} s (DATABASE_CONNECT_TIMEOUT_MS=${timeoutMs}): ${reason}`,
        );
      }
      if (reason !== lastReason) {
        logger.warn(`PostgreSQL at ${where} not reachable: ${reason}; retrying for up to ${Math.round(timeoutMs / 1000)} s (DATABASE_CONNECT_TIMEOUT_MS)`);
        lastReason = reason;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  }
}
