import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client, type Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { EnvironmentVariables } from '../config/env';

export const TOKEN_CHANGES_CHANNEL = 'api_tokens_changed';
/** TCP keep-alive on the listening connection, so a dead peer is noticed even when nothing is said. */
const KEEPALIVE_DELAY_MS = 30_000;

export interface TokenChangeEvents {
  /** Some token was revoked, re-scoped, given another expiry or deleted (or the table truncated). */
  changed(): void;
  /** The listening connection is gone; nothing more will be announced on it. Called at most once. */
  lost(error?: Error): void;
}

export interface TokenChangesListener {
  close(): Promise<void>;
}

/** LISTENs to TOKEN_CHANGES_CHANNEL (migration TokenChanges' triggers) on a connection of its own, `push-<mode>-tokens` in pg_stat_activity. */
@Injectable()
export class TokenChangesRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: EnvironmentVariables,
  ) {}

  /** Resolves once listening; rejects (and reports nothing) when the connection or LISTEN fails. */
  async listen(events: TokenChangeEvents): Promise<TokenChangesListener> {
    const client = new Client({
      ...((this.db.driver as PostgresDriver).master as Pool).options,
      application_name: `push-${this.config.APP_MODE}-tokens`,
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
    client.on('notification', () => open && listening && events.changed());
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${TOKEN_CHANGES_CHANNEL}`);
    } catch (error) {
      await end();
      throw error;
    }
    if (!open) throw new Error('connection closed while starting to listen');
    listening = true;
    return { close: end };
  }
}
