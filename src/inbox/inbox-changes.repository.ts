import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { INBOX_NOTIFY_CHANNEL, type InboxChange } from '../common/inbox-notify';
import { type Listener, listenOnOwnConnection } from '../common/sql/listen';
import { EnvironmentVariables } from '../config/env';

export interface InboxChangeEvents {
  changed(change: InboxChange): void;
  /** The listening connection is gone; nothing more will be announced on it. Called at most once. */
  lost(error?: Error): void;
}

export type InboxChangesListener = Listener;

/** LISTENs to INBOX_NOTIFY_CHANNEL on a connection of its own, `push-<mode>-inbox` in pg_stat_activity: whichever queue backend runs. */
@Injectable()
export class InboxChangesRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: EnvironmentVariables,
  ) {}

  /** Resolves once listening; rejects when the connection or LISTEN fails. */
  listen(events: InboxChangeEvents): Promise<InboxChangesListener> {
    return listenOnOwnConnection(this.db, INBOX_NOTIFY_CHANNEL, `push-${this.config.APP_MODE}-inbox`, {
      notified: (payload) => {
        if (payload) events.changed(JSON.parse(payload) as InboxChange);
      },
      lost: (error) => events.lost(error),
    });
  }
}
