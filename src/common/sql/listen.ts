import { Client, type Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/** TCP keep-alive on the listening connection, so a dead peer is noticed even when nothing is said. */
const KEEPALIVE_DELAY_MS = 30_000;

export interface ListenEvents {
  /** A NOTIFY on the channel, with its payload ('' when it has none). */
  notified(payload: string): void;
  /** The listening connection is gone; nothing more will be announced on it. Called at most once. */
  lost(error?: Error): void;
}

export interface Listener {
  close(): Promise<void>;
}

/**
 * LISTENs to `channel` on a connection of its own (named `applicationName` in pg_stat_activity),
 * with the data source's connection options. Resolves once listening; rejects (and reports
 * nothing) when the connection or LISTEN fails.
 */
export async function listenOnOwnConnection(db: DataSource, channel: string, applicationName: string, events: ListenEvents): Promise<Listener> {
  const client = new Client({
    ...((db.driver as PostgresDriver).master as Pool).options,
    application_name: applicationName,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  });
  let listening = false;
  let open = true;
  const end = () => {
    open = false;
    return client.end().catch(() => undefined);
  };
  const lost = (error?: Error) => {
    if (!open) return;
    void end();
    if (listening) events.lost(error);
  };
  client.on('notification', (message) => open && listening && events.notified(message.payload ?? ''));
  client.on('error', lost);
  client.on('end', () => lost());
  try {
    await client.connect();
    await client.query(`LISTEN ${channel}`);
  } catch (error) {
    await end();
    throw error;
  }
  if (!open) throw new Error('connection closed while starting to listen');
  listening = true;
  return { close: end };
}
