import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { In, Optional, Required, Str } from '../../common/validation/rules';
import { EVENT_TYPES, EventType } from '../notification-event.entity';

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

/** POST /notifications/{id}/events (docs/api.md 5.4). */
export class RecordEventDto {
  /** The client's own installation id, as in /installations/{installationId}. */
  @ApiProperty({ description: "The client's own installation id, as in /installations/{installationId}.", example: '3f1c-device-install' })
  @Required() @Str({ min: 1, max: 255 }) installation_id: string;
  @ApiProperty({ example: 'opened' })
  @Required() @In(EVENT_TYPES) type: EventType;
  @ApiPropertyOptional({ format: 'date-time', description: 'When it happened on the device; now when absent.', example: '2026-11-22T10:00:05.000Z' })
  @Optional()
  @Str({ pattern: ISO_DATE_TIME, patternMessage: 'The :attribute field must be an ISO 8601 date-time with a time zone.' })
  occurred_at?: string | null;
}
