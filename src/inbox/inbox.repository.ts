import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { INBOX_NOTIFY_CHANNEL } from '../common/inbox-notify';
import { compile, valuesOf } from '../common/sql/named';
import { webhookOutboxInsert } from '../common/webhook-events';
import { GenerateSql, SqlFile } from '../queries/generate-sql';
import { ID, OTHER_ID } from '../queries/fixtures';
import { INBOX_MESSAGE_COLUMNS, type InboxMessageRow } from './inbox-message.resource';

export type { InboxMessageRow };

/** Which messages a list shows (docs/api.md#inbox); `inbox`, the default, is every message not archived. */
export const INBOX_STATES = ['unread', 'read', 'archived', 'all'] as const;
export type InboxState = (typeof INBOX_STATES)[number] | 'inbox';

/** Each state as literal SQL: each but `all` must match its partial index's predicate (migrations Inbox, InboxStateIndexes). */
const STATE_SQL: Record<InboxState, string> = {
  unread: 'read_at IS NULL AND archived_at IS NULL',
  read: 'read_at IS NOT NULL AND archived_at IS NULL',
  archived: 'archived_at IS NOT NULL',
  inbox: 'archived_at IS NULL',
  all: 'true',
};

export type InboxPageRow = InboxMessageRow & { created_at_micros: string };

const COLUMNS = INBOX_MESSAGE_COLUMNS;
const LIVE = `app_id = :app_id AND user_id = :user_id AND expires_at > now()`;
const AFTER = `(:after_micros::bigint IS NULL OR (created_at, id) < ('epoch'::timestamptz + :after_micros::bigint * interval '1 microsecond', :after_id::uuid))`;

/** A page of one state (exported for the plan test, test/integration/inbox.int-spec.ts). */
export const listStatement = (state: InboxState) =>
  compile(`SELECT ${COLUMNS}, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_at_micros FROM inbox_messages
    WHERE ${LIVE} AND ${STATE_SQL[state]} AND ${AFTER}
    ORDER BY created_at DESC, id DESC LIMIT :limit`);

/**
 * The most unread messages a count reads (docs/api.md#inbox): a user with more reads this many, so
 * `meta.unread` and the stream's `unread` cost the same however many messages the user has.
 */
export const INBOX_UNREAD_CAP = 1000;

/** The user's unread messages, at most :cap of them, from the unread index (in its order, so no plan reads others first). */
export const unreadStatement = compile(
  `SELECT count(*)::int AS n FROM (SELECT 1 FROM inbox_messages WHERE ${LIVE} AND ${STATE_SQL.unread}
    ORDER BY created_at DESC, id DESC LIMIT :cap) m`,
);

/** A user's changed states, for the api processes' streams (docs/api.md#inbox-stream). */
const notifyUser = `SELECT pg_notify('${INBOX_NOTIFY_CHANNEL}', json_build_object('app_id', :app_id::text, 'user_id', :user_id::text)::text)`;

/** The read counter of each changed message's notification, up for a read, down for an unread. */
const readCounted = `counted AS (
    UPDATE notifications n SET stat_inbox_read = n.stat_inbox_read + d.delta
    FROM (SELECT notification_id, sum(CASE WHEN read_now THEN 1 ELSE -1 END)::int AS delta FROM changed
          WHERE read_now IS DISTINCT FROM read_before GROUP BY notification_id) d
    WHERE n.id = d.notification_id AND d.delta <> 0
  )`;

/** An `inbox.read` webhook message for each message read now (docs/api.md#webhooks). */
const readReported = `reported AS (
    ${webhookOutboxInsert('inbox.read', `SELECT :app_id::uuid, id FROM changed WHERE read_now AND NOT read_before`)}
  )`;

const markStatement = compile(`WITH before AS (
    SELECT id, read_at IS NOT NULL AS read_before FROM inbox_messages WHERE id = :id AND ${LIVE} FOR UPDATE
  ), changed AS (
    UPDATE inbox_messages m SET
      read_at = CASE WHEN :read::boolean IS NULL THEN m.read_at WHEN :read::boolean THEN COALESCE(m.read_at, now()) END,
      archived_at = CASE WHEN :archived::boolean IS NULL THEN m.archived_at WHEN :archived::boolean THEN COALESCE(m.archived_at, now()) END
    FROM before b WHERE m.id = b.id
    RETURNING m.*, b.read_before, m.read_at IS NOT NULL AS read_now
  ), ${readCounted}, ${readReported}, notified AS (${notifyUser})
  SELECT ${COLUMNS}, (SELECT count(*) FROM notified)::int AS notified FROM changed`);

const readAllStatement = compile(`WITH changed AS (
    UPDATE inbox_messages SET read_at = now() WHERE ${LIVE} AND ${STATE_SQL.unread}
    RETURNING id, notification_id, false AS read_before, true AS read_now
  ), ${readCounted}, ${readReported}, notified AS (${notifyUser})
  SELECT (SELECT count(*) FROM changed)::int AS updated, (SELECT count(*) FROM notified)::int AS notified`);

/** The inbox_messages table (docs/api.md#inbox); the fan-out's chunk statement stores the messages. */
@Injectable()
@SqlFile('inbox.repository.sql')
export class InboxRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** A page, newest first, after `after` (walks the partial index of the user and state; `all` the user's index). */
  @GenerateSql({ name: 'inbox', params: [ID, 'user-1', 'inbox', 21, null] })
  @GenerateSql({ name: 'unread, after a cursor', params: [ID, 'user-1', 'unread', 21, { createdAtMicros: '1767571200000000', id: OTHER_ID }] })
  @GenerateSql({ name: 'read', params: [ID, 'user-1', 'read', 21, null] })
  @GenerateSql({ name: 'archived', params: [ID, 'user-1', 'archived', 21, null] })
  @GenerateSql({ name: 'all', params: [ID, 'user-1', 'all', 21, null] })
  list(appId: string, userId: string, state: InboxState, limit: number, after: { createdAtMicros: string; id: string } | null): Promise<InboxPageRow[]> {
    const statement = listStatement(state);
    return this.db.query(
      statement.text,
      valuesOf(statement, { app_id: appId, user_id: userId, limit, after_micros: after?.createdAtMicros ?? null, after_id: after?.id ?? null }),
    );
  }

  /** The user's unread messages up to INBOX_UNREAD_CAP, counted on the partial index. */
  @GenerateSql({ params: [ID, 'user-1'], answers: [[{ n: 0 }]] })
  async unread(appId: string, userId: string): Promise<number> {
    const [{ n }]: { n: number }[] = await this.db.query(
      unreadStatement.text,
      valuesOf(unreadStatement, { app_id: appId, user_id: userId, cap: INBOX_UNREAD_CAP }),
    );
    return n;
  }

  /** Changes a message's read and archived states (null: unchanged), with its notification's read counter; undefined when not the user's. */
  @GenerateSql({ params: [ID, 'user-1', OTHER_ID, { read: true, archived: null }] })
  async mark(appId: string, userId: string, id: string, change: { read: boolean | null; archived: boolean | null }): Promise<InboxMessageRow | undefined> {
    const [row]: InboxMessageRow[] = await this.db.query(
      markStatement.text,
      valuesOf(markStatement, { app_id: appId, user_id: userId, id, read: change.read, archived: change.archived }),
    );
    return row;
  }

  /** Marks every unread message read; answers how many. */
  @GenerateSql({ params: [ID, 'user-1'], answers: [[{ updated: 0 }]] })
  async readAll(appId: string, userId: string): Promise<number> {
    const [{ updated }]: { updated: number }[] = await this.db.query(readAllStatement.text, valuesOf(readAllStatement, { app_id: appId, user_id: userId }));
    return updated;
  }

  /** The user's newest message (any state), a stream's position; undefined when none. */
  @GenerateSql({ params: [ID, 'user-1'] })
  async newest(appId: string, userId: string): Promise<string | undefined> {
    const statement = compile(`SELECT id FROM inbox_messages WHERE ${LIVE} ORDER BY created_at DESC, id DESC LIMIT 1`);
    const [row]: { id: string }[] = await this.db.query(statement.text, valuesOf(statement, { app_id: appId, user_id: userId }));
    return row?.id;
  }

  /** Unread counts of these users, each up to INBOX_UNREAD_CAP; a user without unread messages is left out. */
  @GenerateSql({ params: [ID, ['user-1', 'user-2']] })
  unreadOf(appId: string, userIds: string[]): Promise<{ user_id: string; unread: number }[]> {
    const statement = compile(`SELECT u.user_id, c.unread FROM unnest(:user_ids::text[]) AS u(user_id)
      CROSS JOIN LATERAL (SELECT count(*)::int AS unread FROM (SELECT 1 FROM inbox_messages
        WHERE app_id = :app_id AND user_id = u.user_id AND expires_at > now() AND ${STATE_SQL.unread}
        ORDER BY created_at DESC, id DESC LIMIT :cap) m) c
      WHERE c.unread > 0`);
    return this.db.query(statement.text, valuesOf(statement, { app_id: appId, user_ids: userIds, cap: INBOX_UNREAD_CAP }));
  }

  /** The user's messages after one (`Last-Event-ID`; null: from the first), oldest first; none when that one is unknown to the user. */
  @GenerateSql({ params: [ID, 'user-1', OTHER_ID, 100] })
  since(appId: string, userId: string, lastId: string | null, limit: number): Promise<InboxMessageRow[]> {
    const statement = compile(`SELECT ${COLUMNS} FROM inbox_messages
      WHERE ${LIVE} AND (:last_id::uuid IS NULL OR (created_at, id) > (SELECT created_at, id FROM inbox_messages WHERE id = :last_id AND ${LIVE}))
      ORDER BY created_at, id LIMIT :limit`);
    return this.db.query(statement.text, valuesOf(statement, { app_id: appId, user_id: userId, last_id: lastId, limit }));
  }

  /** One send's messages of these users (the streams an api process holds open). */
  @GenerateSql({ params: [ID, OTHER_ID, ['user-1']] })
  ofNotification(appId: string, notificationId: string, userIds: string[]): Promise<InboxMessageRow[]> {
    const statement = compile(`SELECT ${COLUMNS} FROM inbox_messages
      WHERE notification_id = :notification_id AND user_id = ANY(:user_ids::text[]) AND app_id = :app_id AND expires_at > now()`);
    return this.db.query(statement.text, valuesOf(statement, { app_id: appId, notification_id: notificationId, user_ids: userIds }));
  }
}
