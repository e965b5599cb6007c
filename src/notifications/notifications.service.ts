import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { isUuid } from '../common/uuid';
import { EnvironmentVariables } from '../config/env';
import { CredentialsService } from '../credentials/credentials.service';
import { PAYLOAD_LIMITS, payloadSize, PushContent, targetedPlatforms } from '../delivery/providers/payloads';
import { MetricsService } from '../metrics/metrics.service';
import { FanoutJobs } from '../queue/jobs';
import { SendNotificationDto } from './dto/send-notification.dto';
import { IdempotencyService, requestHash } from './idempotency.service';
import { CursorPosition, cursorKey, decodeCursor, encodeCursor, InvalidCursorError } from './list-cursor';
import { NotificationResource, toNotificationResource } from './notification.resource';
import { NewNotification, NotificationRow, NotificationsRepository } from './notifications.repository';

/** An enqueue that Redis does not confirm by then is left to the worker's sweeper. */
const ENQUEUE_TIMEOUT_MS = 2_000;
const PLATFORM_NAMES = { ios: 'APNs', android: 'FCM', web: 'Web Push' } as const;

export interface SendResult {
  status: number;
  /**
   * `{"data": Notification, "meta": {"accepted": true}}` as JSON text: serialized once, stored as
   * is under an Idempotency-Key, so a replay sends the very same bytes (docs/api.md 5.3).
   */
  body: string;
  replayed: boolean;
}

/**
 * Accepts sends: validates what only the whole request can tell, stores the notification and
 * queues its fan-out. Delivery is the worker's business; the two meet only through the queue
 * (and the payload builders, so a send that cannot fit is refused now).
 */
@Injectable()
export class NotificationsService {
  private readonly logger = new Logger(NotificationsService.name);
  /** Signs list cursors (list-cursor.ts). */
  private readonly cursorKey: Buffer;

  constructor(
    private readonly notifications: NotificationsRepository,
    private readonly fanoutJobs: FanoutJobs,
    private readonly idempotency: IdempotencyService,
    private readonly metrics: MetricsService,
    private readonly credentials: CredentialsService,
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
    await this.assertFits(appId, content);
    const notification: NewNotification = {
      id,
      appId,
      title: content.title,
      body: content.body,
      imageUrl: content.image_url,
      actionUrl: content.action_url,
      data: content.data === null ? null : JSON.stringify(content.data),
      options: content.options === null ? null : JSON.stringify(content.options),
      userIds: [...new Set(dto.recipients.user_ids)],
    };

    if (idempotencyKey === undefined) {
      const body = accepted(await this.notifications.insert(notification));
      this.metrics.notificationsAccepted.inc();
      await this.enqueueFanout(id);
      return { status: 202, body, replayed: false };
    }

    const claim = await this.idempotency.claim(appId, idempotencyKey, requestHash(rawBody));
    if (claim.kind === 'replay') {
      return { status: claim.status, body: claim.body, replayed: true };
    }
    let body: string;
    try {
      body = await this.notifications.insertWithResponse(notification, idempotencyKey, (row) => ({ status: 202, body: accepted(row) }));
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
    const row = await this.notifications.find(appId, id);
    if (!row) throw new NotFoundError();
    return toNotificationResource(row);
  }

  /** Newest first; the cursor is the (created_at, id) of the last item of the previous page. */
  async list(appId: string, limit: number, cursor?: string) {
    const after = cursor === undefined ? null : this.positionOf(cursor);
    const rows = await this.notifications.list(appId, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map(toNotificationResource),
      meta: { next_cursor: rows.length > limit && last ? encodeCursor(this.cursorKey, { createdAtMicros: last.created_at_micros, id: last.id }) : null },
    };
  }

  /**
   * A payload over a provider's limit can be known now: the send is refused instead of failing
   * later, but only for a platform it can reach, one in options.platforms (when given) that the app
   * has credentials for (docs/api.md 5.1). The credentials are looked up only for a payload that
   * is too large somewhere, so an ordinary send costs no query.
   */
  private async assertFits(appId: string, content: PushContent): Promise<void> {
    const tooLarge = targetedPlatforms(content)
      .map((platform) => ({ platform, size: payloadSize(content, platform) }))
      .filter(({ platform, size }) => size > PAYLOAD_LIMITS[platform]);
    if (tooLarge.length === 0) return;
    const reachable = await this.credentials.platforms(appId);
    const refused = tooLarge.find(({ platform }) => reachable.includes(platform));
    if (refused) {
      throw ValidationFailedError.of(
        'notification',
        `The notification is too large for ${PLATFORM_NAMES[refused.platform]}: its payload would be ${refused.size} bytes, the limit is ${PAYLOAD_LIMITS[refused.platform]}.`,
      );
    }
  }

  private positionOf(cursor: string): CursorPosition {
    try {
      return decodeCursor(this.cursorKey, cursor);
    } catch (error) {
      if (error instanceof InvalidCursorError) throw ValidationFailedError.of('cursor', 'The cursor field is invalid.');
      throw error;
    }
  }

  /**
   * The row is already committed, so a Redis outage must not fail the send: the job id is
   * deterministic, and the worker's sweeper queues any accepted notification that no job holds.
   */
  private async enqueueFanout(notificationId: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.fanoutJobs.add(notificationId),
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

function accepted(row: NotificationRow): string {
  return JSON.stringify({ data: toNotificationResource(row), meta: { accepted: true } });
}


function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

