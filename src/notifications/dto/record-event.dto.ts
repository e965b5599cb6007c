import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DescribeObject, Optional, OptionalNotNull, Required } from '../../common/validation/framework';
import { In, Instant, Str, WithSiblings } from '../../common/validation/rules';
import { EVENT_TYPES, type EventType } from '../events/notification-event.entity';

/** POST /notifications/{id}/events (docs/api.md#reads-and-events). */
@DescribeObject({ 'x-only-when': { action: { type: 'opened' } } })
export class RecordEventDto {
  /** The client's own installation id, as in /installations/{installationId}. */
  @ApiProperty({ description: "The client's own installation id, as in /installations/{installationId}.", example: '3f1c-device-install' })
  @Required()
  @Str({ min: 1, max: 255 })
  installation_id: string;
  @ApiProperty({ example: 'opened' })
  @Required()
  @In(EVENT_TYPES)
  type: EventType;
  @ApiPropertyOptional({ format: 'date-time', description: 'When it happened on the device; now when absent.', example: '2026-11-22T10:00:05.000Z' })
  @Optional()
  @Instant()
  occurred_at?: string | null;
  @ApiPropertyOptional({ description: 'With `opened`: the web action button that was clicked (docs/api.md#web-action-buttons).', example: 'track' })
  @OptionalNotNull()
  @Str({ min: 1, max: 64 })
  @WithSiblings('actionWithOpened', (_value, event) => (event.type === 'opened' ? null : 'The :attribute field is allowed only when type is opened.'))
  action?: string;
}
