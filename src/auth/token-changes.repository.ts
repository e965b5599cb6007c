import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type Listener, listenOnOwnConnection } from '../common/sql/listen';
import { EnvironmentVariables } from '../config/env';

export const TOKEN_CHANGES_CHANNEL = 'api_tokens_changed';

export interface TokenChangeEvents {
  /** Some token was revoked, re-scoped, given another expiry or deleted (or the table truncated). */
  changed(): void;
  /** The listening connection is gone; nothing more will be announced on it. Called at most once. */
  lost(error?: Error): void;
}

export type TokenChangesListener = Listener;

/** LISTENs to TOKEN_CHANGES_CHANNEL (migration TokenChanges' triggers) on a connection of its own, `push-<mode>-tokens` in pg_stat_activity. */
@Injectable()
export class TokenChangesRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: EnvironmentVariables,
  ) {}

  /** Resolves once listening; rejects (and reports nothing) when the connection or LISTEN fails. */
  listen(events: TokenChangeEvents): Promise<TokenChangesListener> {
    return listenOnOwnConnection(this.db, TOKEN_CHANGES_CHANNEL, `push-${this.config.APP_MODE}-tokens`, {
      notified: () => events.changed(),
      lost: (error) => events.lost(error),
    });
  }
}
