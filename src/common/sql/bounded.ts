import { Client, Pool } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { AudienceTimedOutError } from '../errors';

export const QUERY_CANCELED = '57014';

export const isQueryCanceled = (error: unknown): boolean => {
  const { code, driverError } = (error ?? {}) as { code?: unknown; driverError?: { code?: unknown } };
  return code === QUERY_CANCELED || driverError?.code === QUERY_CANCELED;
};

export const statementTimeout = (ms: number) => `SET LOCAL statement_timeout = ${Math.max(1, Math.trunc(ms))}`;

/** `work` in a transaction whose statements stop after `timeoutMs` (AudienceTimedOutError) or when `signal` aborts. */
export async function boundedTransaction<T>(
  db: DataSource,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction(async (manager) => {
      await manager.query(statementTimeout(timeoutMs));
      const pid = (manager.queryRunner as { databaseConnection?: { processID?: number } } | undefined)?.databaseConnection?.processID;
      const cancelled: { by?: Promise<void> } = {};
      const cancel = () => void (cancelled.by ??= cancelBackend(db, pid));
      signal?.addEventListener('abort', cancel, { once: true });
      if (signal?.aborted) cancel();
      try {
        return await work(manager);
      } finally {
        signal?.removeEventListener('abort', cancel);
        // A cancel that lands once the statement is over finds the backend idle, which ignores it.
        await cancelled.by;
      }
    });
  } catch (error) {
    throw isQueryCanceled(error) ? new AudienceTimedOutError(timeoutMs) : error;
  }
}

/**
 * How long a cancel may take to connect and to answer. A cancel that fails or hangs changes nothing
 * for the caller: the statement still ends at its statement_timeout, and the caller (and its audience
 * slot) waits for that end either way, so a slot is never given back while its statement runs.
 */
export const CANCEL_TIMEOUT_MS = 5000;

/** Cancels the statement of backend `pid` from a connection of its own: the pool may be full of them. */
async function cancelBackend(db: DataSource, pid: number | null | undefined): Promise<void> {
  if (!pid) return;
  const client = new Client({
    ...((db.driver as PostgresDriver).master as Pool).options,
    application_name: 'push-cancel',
    connectionTimeoutMillis: CANCEL_TIMEOUT_MS,
    query_timeout: CANCEL_TIMEOUT_MS,
  });
  await client
    .connect()
    .then(() => client.query('SELECT pg_cancel_backend($1)', [pid]))
    .catch(() => undefined);
  await client.end().catch(() => undefined);
}
