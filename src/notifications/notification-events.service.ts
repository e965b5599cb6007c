import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { iso } from '../common/time';
import { RecordEventDto } from './dto/record-event.dto';
import { isUuid } from '../common/uuid';
import { NotificationsRepository } from './notifications.repository';

/**
 * Client-reported events: counted once per (notification, installation, type), and only for an
 * installation the notification was fanned out to.
 */
@Injectable()
export class NotificationEventsService {
  constructor(private readonly notifications: NotificationsRepository) {}

  async record(appId: string, notificationId: string, dto: RecordEventDto) {
    if (!isUuid(notificationId)) throw new NotFoundError();
    const occurredAt = dto.occurred_at ? new Date(dto.occurred_at) : new Date();
    if (Number.isNaN(occurredAt.getTime())) throw ValidationFailedError.of('occurred_at', 'The occurred_at field is not a valid date-time.');

    const result = await this.notifications.recordEvent(appId, notificationId, dto.installation_id, dto.type, occurredAt);
    if (!result.found) throw new NotFoundError();
    if (!result.targeted) {
      throw ValidationFailedError.of('installation_id', 'The installation_id is not a target of this notification.');
    }
    return {
      notification_id: notificationId,
      installation_id: dto.installation_id,
      type: dto.type,
      occurred_at: iso(occurredAt),
      counted: result.counted,
    };
  }
}
