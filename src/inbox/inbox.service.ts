import { Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { isUuid } from '../common/uuid';
import { EnvironmentVariables } from '../config/env';
import { CursorPosition, cursorKey, decodeCursor, encodeCursor, InvalidCursorError } from '../notifications/list-cursor';
import { toInboxMessageResource } from './inbox-message.resource';
import { InboxRepository, InboxState } from './inbox.repository';
import { InboxStreamsService } from './inbox-streams.service';

/** A user's inbox (docs/api.md#inbox); the caller has checked that the token may act for the user. */
@Injectable()
export class InboxService {
  private readonly cursorKey: Buffer;

  constructor(
    private readonly inbox: InboxRepository,
    private readonly streams: InboxStreamsService,
    config: EnvironmentVariables,
  ) {
    this.cursorKey = cursorKey(config.APP_KEY, 'pns inbox cursor v1');
  }

  /** Newest first; `meta.unread` counts the user's unread messages whatever the page. */
  async list(appId: string, userId: string, state: InboxState, limit: number, cursor?: string) {
    const after = cursor === undefined ? null : this.positionOf(cursor);
    const [rows, unread] = await Promise.all([this.inbox.list(appId, userId, state, limit + 1, after), this.inbox.unread(appId, userId)]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map(toInboxMessageResource),
      meta: {
        next_cursor: rows.length > limit && last ? encodeCursor(this.cursorKey, { createdAtMicros: last.created_at_micros, id: last.id }) : null,
        unread,
      },
    };
  }

  async mark(appId: string, userId: string, id: string, change: { read?: boolean; archived?: boolean }) {
    if (change.read === undefined && change.archived === undefined) {
      throw ValidationFailedError.of('read', 'The read field is required when archived is not present.');
    }
    if (!isUuid(id)) throw new NotFoundError();
    const row = await this.inbox.mark(appId, userId, id.toLowerCase(), { read: change.read ?? null, archived: change.archived ?? null });
    if (!row) throw new NotFoundError();
    return toInboxMessageResource(row);
  }

  async readAll(appId: string, userId: string): Promise<{ updated: number }> {
    return { updated: await this.inbox.readAll(appId, userId) };
  }

  stream(appId: string, userId: string, res: ServerResponse, lastEventId: string | undefined): Promise<void> {
    return this.streams.open(appId, userId, res, lastEventId);
  }

  private positionOf(cursor: string): CursorPosition {
    try {
      return decodeCursor(this.cursorKey, cursor);
    } catch (error) {
      if (error instanceof InvalidCursorError) throw ValidationFailedError.of('cursor', 'The cursor field is invalid.');
      throw error;
    }
  }
}
