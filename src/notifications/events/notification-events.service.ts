import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '../../common/errors';
import { iso } from '../../common/time';
import { RecordEventDto } from '../dto/record-event.dto';
import { isUuid } from '../../common/uuid';
import { EventResult, NotificationsRepository } from '../notifications.repository';

/**
 * Client-reported events (docs/api.md#reads-and-events): counted once per (notification,
 * installation, type), and only for an installation the notification was accepted for or is being
 * sent to.
 */
@Injectable()
export class NotificationEventsService {
  constructor(private readonly notifications: NotificationsRepository) {}

  async record(appId: string, notificationId: string, dto: RecordEventDto) {
    if (!isUuid(notificationId)) throw new NotFoundError();
    const occurredAt = dto.occurred_at ? new Date(dto.occurred_at) : new Date();
    if (Number.isNaN(occurredAt.getTime())) throw ValidationFailedError.of('occurred_at', 'The occurred_at field is not a valid date-time.');

    const result = await this.notifications.recordEvent(appId, notificationId, dto.installation_id, dto.type, occurredAt, dto.action ?? null);
    if (!result.found) throw new NotFoundError();
    if (!result.targeted) {
      throw ValidationFailedError.of('installation_id', 'The installation_id is not a target of this notification.');
    }
    if (!result.eligible) throw ValidationFailedError.of('installation_id', notSentMessage(result));
    return {
      notification_id: notificationId,
      installation_id: dto.installation_id,
      type: dto.type,
      occurred_at: iso(occurredAt),
      counted: result.counted,
    };
  }
}

/** Why a targeted installation's events are not counted, in the words of its delivery's state. */
function notSentMessage(result: EventResult): string {
  const why = `${result.status}${result.reason ? `: ${result.reason}` : ''}`;
  switch (result.status) {
    case 'skipped':
      return `The notification was not sent to this installation (${why}), so its events are not counted.`;
    case 'failed':
      return `The notification was not delivered to this installation (${why}), so its events are not counted.`;
    case 'scheduled':
    case 'pending':
    case 'sending':
    case 'accepted':
    case null:
      return 'The notification has not been sent to this installation yet, so its events are not counted.';
  }
}
