import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { toInstallationResource } from '../installations/installation.resource';
import type { toNotificationResource } from '../notifications/notification.resource';
import type { WebhookMessageStatus } from '../common/vocabulary';
import { WEBHOOK_FINISHED, WEBHOOK_OWED } from '../common/webhook-events';
import { AT, ID, OTHER_ID } from '../queries/fixtures';
import { INBOX_MESSAGE_COLUMNS, type InboxMessageRow } from '../inbox/inbox-message.resource';
import { GenerateSql, SqlFile } from '../queries/generate-sql';
import { variantStatisticsSql } from '../common/variant-statistics';
import { NOTIFICATION_ROW_COLUMNS } from '../common/notification';

const GIVEN_UP: WebhookMessageStatus = 'failed';

/** A webhook as listed: never its secret. */
export interface WebhookRow {
  id: string;
  app_id: string;
  url: string;
  events: string[];
  created_at: Date;
}

/** A message taken for one attempt, with its endpoint. */
export interface MessageAttempt {
  id: string;
  type: string;
  subject_id: string;
  created_at: Date;
  body: string | null;
  /** Attempts made, this one included. */
  attempts: number;
  webhook_id: string;
  url: string;
  secret_enc: string;
}

/** What troubles answers. */
export interface WebhookTroubles {
  failed: number;
  retrying: number;
  recent: WebhookTroubleRow[];
}

/** A webhook message that went wrong: given up (`failed`) or still being retried (`pending` after a failed attempt). */
export interface WebhookTroubleRow {
  id: string;
  app_id: string;
  url: string;
  type: string;
  subject_id: string;
  status: Extract<WebhookMessageStatus, 'pending' | 'failed'>;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/** The rows the resource mappers take, read here with this module's own column lists. */
export type NotificationSubject = Parameters<typeof toNotificationResource>[0];
export type InstallationSubject = Parameters<typeof toInstallationResource>[0];

const WEBHOOK_COLUMNS = 'id, app_id, url, events, created_at';

/** The Notification resource's row (docs/api.md#notification-resource), with its variants' figures. */
const NOTIFICATION_COLUMNS = `${NOTIFICATION_ROW_COLUMNS}, ${variantStatisticsSql('n')}`;

const INSTALLATION_COLUMNS = `id, app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
  permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, deleted_at, tags,
  COALESCE((SELECT b.badge FROM installation_badges b WHERE b.installation_id = installations.id), 0) AS badge`;

/** `webhooks` and the `webhook_messages` outbox: state-changing statements insert messages (common/webhook-events.ts); queued, attempted, finished here. */
@Injectable()
@SqlFile('webhooks.repository.sql')
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Undefined when the app does not exist. */
  @GenerateSql({ params: [ID, OTHER_ID, 'https://example.com/hook', ['notification.completed'], 'v1:sealed'] })
  async insert(id: string, appId: string, url: string, events: readonly string[], secretEnc: string): Promise<WebhookRow | undefined> {
    const [row]: WebhookRow[] = await this.db.query(
      `INSERT INTO webhooks (id, app_id, url, events, secret_enc)
       SELECT $1, a.id, $3, $4::text[], $5 FROM apps a WHERE a.id = $2
       RETURNING ${WEBHOOK_COLUMNS}`,
      [id, appId, url, events, secretEnc],
    );
    return row;
  }

  @GenerateSql({ params: [OTHER_ID] })
  list(appId: string): Promise<WebhookRow[]> {
    return this.db.query(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE app_id = $1 ORDER BY created_at, id`, [appId]);
  }

  /** Deletes a webhook with its messages (no call starts after this); undefined when it did not exist. */
  @GenerateSql({ params: [ID] })
  async delete(id: string): Promise<WebhookRow | undefined> {
    const [rows]: [WebhookRow[], number] = await this.db.query(`DELETE FROM webhooks WHERE id = $1 RETURNING ${WEBHOOK_COLUMNS}`, [id]);
    return rows[0];
  }

  /** Hands each sealed secret, locked, to `reseal` (the new sealed value, or null to keep it); one transaction, so a failure changes nothing. */
  @GenerateSql({ params: [() => 'v1:new'], answers: [[{ id: ID, secret_enc: 'v1:old' }]] })
  async resealAll(reseal: (row: { id: string; secret_enc: string }) => string | null): Promise<void> {
    await this.db.transaction(async (manager) => {
      const rows: { id: string; secret_enc: string }[] = await manager.query(`SELECT id, secret_enc FROM webhooks ORDER BY id FOR UPDATE`);
      for (const row of rows) {
        const sealed = reseal(row);
        if (sealed !== null) await manager.query(`UPDATE webhooks SET secret_enc = $2 WHERE id = $1`, [row.id, sealed]);
      }
    });
  }

  /** Up to `limit` owed, due messages (new, or a queued attempt lost with Redis or a crash), leased `leaseSeconds` so the next look skips them. */
  @GenerateSql({ params: [100, 30] })
  dispatchDue(limit: number, leaseSeconds: number): Promise<{ id: string; attempts: number }[]> {
    return this.db
      .query(
        `UPDATE webhook_messages m SET due_at = now() + make_interval(secs => $2)
       WHERE m.id IN (
         SELECT id FROM webhook_messages WHERE ${WEBHOOK_OWED} AND due_at <= now() ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING m.id, m.attempts`,
        [limit, leaseSeconds],
      )
      .then(([rows]: [{ id: string; attempts: number }[], number]) => rows);
  }

  /** Counts one more attempt of an owed message and leases it `leaseSeconds`; undefined when delivered, given up or its webhook deleted. */
  @GenerateSql({ params: [ID, 30] })
  async startAttempt(messageId: string, leaseSeconds: number): Promise<MessageAttempt | undefined> {
    const [rows]: [MessageAttempt[], number] = await this.db.query(
      `UPDATE webhook_messages m SET attempts = m.attempts + 1, due_at = now() + make_interval(secs => $2)
       FROM webhooks w
       WHERE m.id = $1 AND m.${WEBHOOK_OWED} AND w.id = m.webhook_id
       RETURNING m.id, m.type, m.subject_id, m.created_at, m.body, m.attempts, w.id AS webhook_id, w.url, w.secret_enc`,
      [messageId, leaseSeconds],
    );
    return rows[0];
  }

  /** Stores the body unless one is stored already; the stored one (every attempt sends the same). */
  @GenerateSql({ params: [ID, '{}'] })
  async keepBody(messageId: string, body: string): Promise<string> {
    const [rows]: [{ body: string }[], number] = await this.db.query(`UPDATE webhook_messages SET body = coalesce(body, $2) WHERE id = $1 RETURNING body`, [
      messageId,
      body,
    ]);
    return rows[0]?.body ?? body;
  }

  @GenerateSql({ params: [ID] })
  async notification(id: string): Promise<NotificationSubject | undefined> {
    const [row] = await this.db.query<NotificationSubject[]>(`SELECT ${NOTIFICATION_COLUMNS} FROM notifications n WHERE id = $1`, [id]);
    return row;
  }

  @GenerateSql({ params: [ID] })
  async inboxMessage(id: string): Promise<InboxMessageRow | undefined> {
    const [row] = await this.db.query<InboxMessageRow[]>(`SELECT ${INBOX_MESSAGE_COLUMNS} FROM inbox_messages WHERE id = $1`, [id]);
    return row;
  }

  @GenerateSql({ params: [ID] })
  async installation(id: string): Promise<InstallationSubject | undefined> {
    const [row] = await this.db.query<InstallationSubject[]>(`SELECT ${INSTALLATION_COLUMNS} FROM installations WHERE id = $1`, [id]);
    return row;
  }

  /** Messages given up since `since` and being retried, newest first, with counts; each half reads its own partial index (finished, pending). */
  @GenerateSql({ params: [AT, 20] })
  troubles(since: Date, limit: number): Promise<WebhookTroubles> {
    return this.troublesWhere(since, limit, null);
  }

  /** As troubles, of these apps' webhooks only (an operator of some apps, docs/api.md#roles). */
  @GenerateSql({ params: [AT, 20, [ID]] })
  troublesOf(since: Date, limit: number, appIds: string[]): Promise<WebhookTroubles> {
    return this.troublesWhere(since, limit, appIds);
  }

  private async troublesWhere(since: Date, limit: number, appIds: string[] | null): Promise<WebhookTroubles> {
    // The apps' webhooks, as the parameter `n`; nothing when every app's are asked for.
    const ofApps = (n: number) => (appIds ? `AND webhook_id IN (SELECT id FROM webhooks WHERE app_id = ANY($${n}::uuid[]))` : '');
    const apps = appIds ? [appIds] : [];
    const [counts]: { failed: number; retrying: number }[] = await this.db.query(
      `SELECT (SELECT count(*) FROM webhook_messages WHERE ${WEBHOOK_FINISHED} AND status = $2::text AND finished_at >= $1 ${ofApps(3)})::int AS failed,
              (SELECT count(*) FROM webhook_messages WHERE ${WEBHOOK_OWED} AND last_error IS NOT NULL ${ofApps(3)})::int AS retrying`,
      [since, GIVEN_UP, ...apps],
    );
    const recent: WebhookTroubleRow[] = await this.db.query(
      `SELECT m.id, w.app_id, w.url, m.type, m.subject_id, m.status, m.attempts, m.last_error, m.created_at, m.finished_at
       FROM (
         (SELECT * FROM webhook_messages WHERE ${WEBHOOK_FINISHED} AND status = $3::text AND finished_at >= $1 ${ofApps(4)} ORDER BY finished_at DESC LIMIT $2)
         UNION ALL
         (SELECT * FROM webhook_messages WHERE ${WEBHOOK_OWED} AND last_error IS NOT NULL ${ofApps(4)} ORDER BY due_at DESC LIMIT $2)
       ) m JOIN webhooks w ON w.id = m.webhook_id
       ORDER BY coalesce(m.finished_at, m.created_at) DESC
       LIMIT $2`,
      [since, limit, GIVEN_UP, ...apps],
    );
    return { ...counts, recent };
  }

  /** The attempt was answered 2xx: nothing more is owed. */
  @GenerateSql({ params: [ID] })
  async delivered(messageId: string): Promise<void> {
    await this.db.query(`UPDATE webhook_messages SET status = $2::text, finished_at = now(), last_error = NULL WHERE id = $1`, [
      messageId,
      'delivered' satisfies WebhookMessageStatus,
    ]);
  }

  /** The last attempt failed too: given up. */
  @GenerateSql({ params: [ID, 'HTTP 500'] })
  async failed(messageId: string, error: string): Promise<void> {
    await this.db.query(`UPDATE webhook_messages SET status = $3::text, finished_at = now(), last_error = $2 WHERE id = $1`, [
      messageId,
      error.slice(0, 255),
      GIVEN_UP,
    ]);
  }

  /** The attempt failed; the next is queued, and due for the dispatcher `dueInMs` from now if its job is lost. */
  @GenerateSql({ params: [ID, 'HTTP 500', 60_000] })
  async retryLater(messageId: string, error: string, dueInMs: number): Promise<void> {
    await this.db.query(`UPDATE webhook_messages SET last_error = $2, due_at = now() + make_interval(secs => $3 / 1000.0) WHERE id = $1 AND ${WEBHOOK_OWED}`, [
      messageId,
      error.slice(0, 255),
      dueInMs,
    ]);
  }
}
