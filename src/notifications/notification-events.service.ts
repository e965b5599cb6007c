import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { iso } from '../common/time';
import { RecordEventDto } from './dto/record-event.dto';
import { EventType } from './notification-event.entity';
import { isUuid } from './notifications.service';

/** Which counter each event type moves; also the only column names this SQL interpolates. */
const COUNTERS: Record<EventType, string> = { received: 'stat_received', displayed: 'stat_displayed', opened: 'stat_opened' };

/**
 * Client-reported events: counted once per (notification, installation, type), and only for an
 * installation the notification was fanned out to.
 */
@Injectable()
export class NotificationEventsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async record(appId: string, notificationId: string, dto: RecordEventDto) {
    if (!isUuid(notificationId)) throw new NotFoundError();
    const occurredAt = dto.occurred_at ? new Date(dto.occurred_at) : new Date();
    if (Number.isNaN(occurredAt.getTime())) throw ValidationFailedError.of('occurred_at', 'The occurred_at field is not a valid date-time.');

    const [result] = await this.db.query(
      `WITH notification AS (
         SELECT id FROM notifications WHERE id = $1 AND app_id = $2
       ), target AS (
         SELECT d.installation_id FROM deliveries d
         JOIN installations i ON i.id = d.installation_id
         WHERE d.notification_id = (SELECT id FROM notification) AND i.app_id = $2 AND i.installation_id = $3
       ), inserted AS (
         INSERT INTO notification_events (notification_id, installation_id, type, occurred_at)
         SELECT $1, installation_id, $4, $5 FROM target
         ON CONFLICT DO NOTHING
         RETURNING 1
       ), counted AS (
         UPDATE notifications SET ${COUNTERS[dto.type]} = ${COUNTERS[dto.type]} + (SELECT count(*) FROM inserted)
         WHERE id = $1 AND EXISTS (SELECT 1 FROM inserted)
         RETURNING 1
       )
       SELECT EXISTS (SELECT 1 FROM notification) AS found, EXISTS (SELECT 1 FROM target) AS targeted,
              EXISTS (SELECT 1 FROM counted) AS counted`,
      [notificationId, appId, dto.installation_id, dto.type, occurredAt],
    );
    if (!result.found) throw new NotFoundError();
    if (!result.targeted) {
      throw ValidationFailedError.of('installation_id', 'The installation_id is not a target of this notification.');
    }
    return {
      notification_id: notificationId,
      installation_id: dto.installation_id,
      type: dto.type,
      occurred_at: iso(occurredAt),
      counted: result.counted as boolean,
    };
  }
}
