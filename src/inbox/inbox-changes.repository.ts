import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client, type Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { INBOX_NOTIFY_CHANNEL, type InboxChange } from '../common/inbox-notify';
import { EnvironmentVariables } from '../config/env';

/** TCP keep-alive on the listening connection, so a dead peer is noticed even when nothing is said. */
const KEEPALIVE_DELAY_MS = 30_000;

export interface InboxChangeEvents {
  changed(change: InboxChange): void;
  /** The listening connection is gone; nothing more will be announced on it. Called at most once. */
  lost(error?: Error): void;
}

export interface InboxChangesListener {
  close(): Promise<void>;
}

/** LISTENs to INBOX_NOTIFY_CHANNEL on a connection of its own, `push-<mode>-inbox` in pg_stat_activity: whichever queue backend runs. */
@Injectable()
export class InboxChangesRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: EnvironmentVariables,
  ) {}

  /** Resolves once listening; rejects when the connection or LISTEN fails. */
  async listen(events: InboxChangeEvents): Promise<InboxChangesListener> {
    const client = new Client({
      ...((this.db.driver as PostgresDriver).master as Pool).options,
      application_name: `push-${this.config.APP_MODE}-inbox`,
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
    client.on('notification', (message) => {
      if (!open || !listening || !message.payload) return;
      events.changed(JSON.parse(message.payload) as InboxChange);
    });
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${INBOX_NOTIFY_CHANNEL}`);
    } catch (error) {
      await end();
      throw error;
    }
    if (!open) throw new Error('connection closed while starting to listen');
    listening = true;
    return { close: end };
  }
}
