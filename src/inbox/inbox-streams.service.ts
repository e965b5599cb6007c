import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { InboxChange } from '../common/inbox-notify';
import { isUuid } from '../common/uuid';
import { EnvironmentVariables } from '../config/env';
import { InboxChangesListener, InboxChangesRepository } from './inbox-changes.repository';
import { InboxMessageRow, toInboxMessageResource } from './inbox-message.resource';
import { InboxRepository } from './inbox.repository';

/** Messages a reconnecting stream catches up at most; more, and the client lists them. */
const CATCH_UP_LIMIT = 1000;
/** Users per query when a send's messages are looked up for the streams open here. */
const USERS_PER_QUERY = 1000;
/** A stream whose client reads this far behind is closed: it reconnects and catches up. */
const MAX_BUFFERED_BYTES = 1 << 20;
/** The client's wait before reconnecting (EventSource's `retry`). */
const RETRY_MS = 2000;
/** The position of a user without messages: a reconnection catches up from the first. */
const FROM_THE_FIRST = '0';

/**
 * The inbox streams open on this api process (docs/api.md#inbox-stream), fed by PostgreSQL NOTIFY
 * from whichever process stored or changed the messages. A lost listening connection closes every
 * stream: clients reconnect with `Last-Event-ID` and catch up.
 */
@Injectable()
export class InboxStreamsService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(InboxStreamsService.name);
  /** app id → user id → that user's open streams. */
  private readonly streams = new Map<string, Map<string, Set<ServerResponse>>>();
  private listener: Promise<InboxChangesListener> | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  /** Changes are handled one after the other, so a user's events keep their order. */
  private handling: Promise<void> = Promise.resolve();

  constructor(
    private readonly changes: InboxChangesRepository,
    private readonly inbox: InboxRepository,
    private readonly config: EnvironmentVariables,
  ) {}

  /** How many streams are open here (metrics, tests). */
  get size(): number {
    let n = 0;
    for (const users of this.streams.values()) for (const open of users.values()) n += open.size;
    return n;
  }

  /**
   * Answers `res` as the user's stream: the messages after `lastEventId`, the unread count with the
   * stream's position as its id (the newest message, or FROM_THE_FIRST), then every change.
   */
  async open(appId: string, userId: string, res: ServerResponse, lastEventId: string | undefined): Promise<void> {
    await this.listen();
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
    res.write(`retry: ${RETRY_MS}\n\n`);
    // Registered before the catch-up reads, so nothing stored meanwhile is missed (a message may come twice: same id).
    this.add(appId, userId, res);
    res.on('close', () => this.remove(appId, userId, res));
    if (lastEventId === FROM_THE_FIRST || (lastEventId !== undefined && isUuid(lastEventId))) {
      const after = lastEventId === FROM_THE_FIRST ? null : lastEventId.toLowerCase();
      for (const row of await this.inbox.since(appId, userId, after, CATCH_UP_LIMIT)) this.sendMessage(res, row);
    }
    const [unread, newest] = await Promise.all([this.inbox.unread(appId, userId), this.inbox.newest(appId, userId)]);
    this.sendUnread(res, unread, newest ?? FROM_THE_FIRST);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.closeAll();
  }

  private add(appId: string, userId: string, res: ServerResponse): void {
    let users = this.streams.get(appId);
    if (!users) this.streams.set(appId, (users = new Map<string, Set<ServerResponse>>()));
    let open = users.get(userId);
    if (!open) users.set(userId, (open = new Set<ServerResponse>()));
    open.add(res);
    this.heartbeat ??= setInterval(() => this.beat(), this.config.INBOX_STREAM_HEARTBEAT_MS).unref();
  }

  private remove(appId: string, userId: string, res: ServerResponse): void {
    const users = this.streams.get(appId);
    const open = users?.get(userId);
    if (!users || !open) return;
    open.delete(res);
    if (open.size === 0) users.delete(userId);
    if (users.size === 0) this.streams.delete(appId);
  }

  private listen(): Promise<InboxChangesListener> {
    this.listener ??= this.changes
      .listen({
        changed: (change) => {
          this.handling = this.handling
            .then(() => this.handle(change))
            .catch((error: Error) => this.logger.error(`inbox change not streamed: ${error.message}`));
        },
        lost: (error) => {
          this.logger.warn(`inbox listener lost${error ? `: ${error.message}` : ''}; closing the streams, which reconnect`);
          this.listener = null;
          this.endStreams();
        },
      })
      .catch((error: unknown) => {
        this.listener = null;
        throw error;
      });
    return this.listener;
  }

  private async handle(change: InboxChange): Promise<void> {
    const users = this.streams.get(change.app_id);
    if (!users) return;
    if ('user_id' in change) {
      if (!users.has(change.user_id)) return;
      const unread = await this.inbox.unread(change.app_id, change.user_id);
      for (const res of users.get(change.user_id) ?? []) this.sendUnread(res, unread);
      return;
    }
    const connected = [...users.keys()];
    for (let i = 0; i < connected.length; i += USERS_PER_QUERY) {
      const rows = await this.inbox.ofNotification(change.app_id, change.notification_id, connected.slice(i, i + USERS_PER_QUERY));
      if (rows.length === 0) continue;
      for (const row of rows) for (const res of users.get(row.user_id) ?? []) this.sendMessage(res, row);
      const counts = await this.inbox.unreadOf(
        change.app_id,
        rows.map((row) => row.user_id),
      );
      for (const { user_id, unread } of counts) for (const res of users.get(user_id) ?? []) this.sendUnread(res, unread);
    }
  }

  private sendMessage(res: ServerResponse, row: InboxMessageRow): void {
    this.write(res, `id: ${row.id}\nevent: message\ndata: ${JSON.stringify(toInboxMessageResource(row))}\n\n`);
  }

  private sendUnread(res: ServerResponse, unread: number, position?: string): void {
    this.write(res, `${position === undefined ? '' : `id: ${position}\n`}event: unread\ndata: ${JSON.stringify({ unread })}\n\n`);
  }

  private beat(): void {
    for (const users of this.streams.values()) for (const open of users.values()) for (const res of open) this.write(res, ': keep-alive\n\n');
  }

  private write(res: ServerResponse, text: string): void {
    if (res.writableEnded || res.destroyed) return;
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      res.destroy();
      return;
    }
    res.write(text);
  }

  private endStreams(): void {
    for (const users of this.streams.values()) for (const open of users.values()) for (const res of open) res.end();
    this.streams.clear();
  }

  private async closeAll(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.endStreams();
    const listener = this.listener;
    this.listener = null;
    if (listener) await listener.then((l) => l.close()).catch(() => undefined);
  }
}
