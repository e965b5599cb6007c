import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { preparedQuery } from '../common/prepared-query';
import { PAYLOAD_LIMITS, payloadSize, PushContent, targetedPlatforms } from '../common/push-payloads';
import { FANOUT_QUEUE, FanoutJob, fanoutJobId } from '../common/queues';
import { EnvironmentVariables } from '../config/env';
import { MetricsService } from '../metrics/metrics.service';
import { SendNotificationDto } from './dto/send-notification.dto';
import { IdempotencyService, requestHash } from './idempotency.service';
import { CursorPosition, cursorKey, decodeCursor, encodeCursor, InvalidCursorError } from './list-cursor';
import {
  NOTIFICATION_COLUMNS,
  NotificationResource,
  NotificationRow,
  toNotificationResource,
  toPushContent,
} from './notification.resource';

/** An enqueue that Redis does not confirm by then is left to the worker's sweeper. */
const ENQUEUE_TIMEOUT_MS = 2_000;
const PLATFORM_NAMES = { ios: 'APNs', android: 'FCM', web: 'Web Push' } as const;

export interface SendResult {
  status: number;
  body: { data: NotificationResource; meta: { accepted: true } };
  replayed: boolean;
}

/**
 * Accepts sends: validates what only the whole request can tell, stores the notification and
 * queues its fan-out. Delivery is the worker's business; the two meet only through the queue.
 */
@Injectable()
export class NotificationsService {
  private readonly logger = new Logger(NotificationsService.name);
  /** Signs list cursors (list-cursor.ts). */
  private readonly cursorKey: Buffer;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(FANOUT_QUEUE) private readonly fanoutQueue: Queue<FanoutJob>,
    private readonly idempotency: IdempotencyService,
    private readonly metrics: MetricsService,
    config: EnvironmentVariables,
  ) {
    this.cursorKey = cursorKey(config.APP_KEY);
  }

  async send(appId: string, dto: SendNotificationDto, rawBody: unknown, idempotencyKey?: string): Promise<SendResult> {
    const id = randomUUID();
    const content: PushContent = {
      id,
      title: dto.notification.title,
      body: dto.notification.body,
      image_url: dto.notification.image_url ?? null,
      action_url: dto.notification.action_url ?? null,
      data: dto.data ?? null,
      options: dto.options ? withoutUndefined(dto.options) : null,
    };
    assertFits(content);
    const userIds = [...new Set(dto.recipients.user_ids)];

    if (idempotencyKey === undefined) {
      // One INSERT is atomic on its own: an explicit transaction would only add BEGIN and COMMIT,
      // two more round trips (and socket writes) per send.
      const body = await this.insert(null, appId, content, userIds);
      this.metrics.notificationsAccepted.inc();
      await this.enqueueFanout(id);
      return { status: 202, body, replayed: false };
    }

    const claim = await this.idempotency.claim(appId, idempotencyKey, requestHash(rawBody));
    if (claim.kind === 'replay') {
      return { status: claim.status, body: claim.body as SendResult['body'], replayed: true };
    }
    let body: SendResult['body'];
    try {
      body = await this.db.transaction(async (manager) => {
        const response = await this.insert(manager, appId, content, userIds);
        await this.idempotency.complete(manager, appId, idempotencyKey, 202, response);
        return response;
      });
    } catch (error) {
      await this.idempotency.release(appId, idempotencyKey).catch(() => undefined);
      throw error;
    }
    // Counted once committed; a replay (above) stored nothing new and is not counted again.
    this.metrics.notificationsAccepted.inc();
    await this.enqueueFanout(id);
    return { status: 202, body, replayed: false };
  }

  async find(appId: string, id: string): Promise<NotificationResource> {
    if (!isUuid(id)) throw new NotFoundError();
    const [row]: NotificationRow[] = await this.db.query(
      `SELECT ${NOTIFICATION_COLUMNS} FROM notifications WHERE app_id = $1 AND id = $2`,
      [appId, id],
    );
    if (!row) throw new NotFoundError();
    return toNotificationResource(row);
  }

  /** Newest first; the cursor is the (created_at, id) of the last item of the previous page. */
  async list(appId: string, limit: number, cursor?: string) {
    const after = cursor === undefined ? null : this.positionOf(cursor);
    // Microseconds since the epoch, exact both ways: no date text for PostgreSQL to parse.
    const rows: (NotificationRow & { created_at_micros: string })[] = await this.db.query(
      `SELECT ${NOTIFICATION_COLUMNS}, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_at_micros FROM notifications
       WHERE app_id = $1 AND ($2::bigint IS NULL OR (created_at, id) < ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::uuid))
       ORDER BY created_at DESC, id DESC
       LIMIT $4`,
      [appId, after?.createdAtMicros ?? null, after?.id ?? null, limit + 1],
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map(toNotificationResource),
      meta: { next_cursor: rows.length > limit && last ? encodeCursor(this.cursorKey, { createdAtMicros: last.created_at_micros, id: last.id }) : null },
    };
  }

  private positionOf(cursor: string): CursorPosition {
    try {
      return decodeCursor(this.cursorKey, cursor);
    } catch (error) {
      if (error instanceof InvalidCursorError) throw ValidationFailedError.of('cursor', 'The cursor field is invalid.');
      throw error;
    }
  }

  /** Inside the caller's transaction (`manager`), or alone as a prepared statement. */
  private async insert(manager: EntityManager | null, appId: string, content: PushContent, userIds: string[]) {
    const [row] = await this.query<NotificationRow>(
      manager,
      'notifications_insert',
      `INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::text[], $10)
       RETURNING ${NOTIFICATION_COLUMNS}`,
      [
        content.id,
        appId,
        content.title,
        content.body,
        content.image_url,
        content.action_url,
        content.data === null ? null : JSON.stringify(content.data),
        content.options === null ? null : JSON.stringify(content.options),
        userIds,
        userIds.length,
      ],
    );
    return { data: toNotificationResource(row), meta: { accepted: true as const } };
  }

  private async query<Row>(manager: EntityManager | null, name: string, text: string, values: unknown[]): Promise<Row[]> {
    if (manager) return manager.query(text, values);
    return (await preparedQuery<Row>(this.db, name, text, values)).rows;
  }

  /**
   * The row is already committed, so a Redis outage must not fail the send: the job id is
   * deterministic, and the worker's sweeper queues any accepted notification that no job holds.
   */
  private async enqueueFanout(notificationId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.fanoutQueue.add('fanout', { notificationId }, { jobId: fanoutJobId(notificationId) }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ENQUEUE_TIMEOUT_MS} ms`)), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      this.logger.warn(`Fan-out of notification ${notificationId} not queued now (${(error as Error).message}); the sweeper will queue it.`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A payload over a provider's limit can be known now: reject the send instead of failing later. */
function assertFits(content: PushContent): void {
  for (const platform of targetedPlatforms(content)) {
    const size = payloadSize(content, platform);
    if (size > PAYLOAD_LIMITS[platform]) {
      throw ValidationFailedError.of(
        'notification',
        `The notification is too large for ${PLATFORM_NAMES[platform]}: its payload would be ${size} bytes, the limit is ${PAYLOAD_LIMITS[platform]}.`,
      );
    }
  }
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

