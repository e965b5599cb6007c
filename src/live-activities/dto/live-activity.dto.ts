import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CHANNEL_STORAGES, type ChannelStorage, LIVE_ACTIVITY_EVENTS, type LiveActivityEvent } from '../../common/vocabulary';
import { Optional, OptionalNotNull, Required, rule } from '../../common/validation/framework';
import { In, Instant, Nested, Num, PlainObject, Str, WithSiblings } from '../../common/validation/rules';
import { APNS_TOKEN, ATTRIBUTES_TYPE_NAME, INSTALLATION_ID } from '../../common/validation/domain-rules';

// Types, bounds and patterns in the OpenAPI document come from the validation rules
// (common/validation/); @ApiProperty here adds only descriptions and examples.

/** The largest `content_state` (docs/api.md#live-activity-updates): APNs' whole payload is 4 KiB. */
export const CONTENT_STATE_MAX_BYTES = 4096;

/** PUT /live-activities/{activity_id}: a running activity and its update token. */
export class RegisterLiveActivityDto {
  @ApiProperty({ description: 'The installation (your id) the activity runs on; an iOS installation of the app.', example: '3f1c-device-install' })
  @Required()
  @rule('installationId', INSTALLATION_ID)
  installation_id: string;
  @ApiProperty({ description: 'The Swift ActivityAttributes type of the activity.', example: 'DeliveryAttributes' })
  @Required()
  @rule('attributesType', ATTRIBUTES_TYPE_NAME)
  attributes_type: string;
  @ApiProperty({
    description: "The activity's update token (`Activity.pushTokenUpdates`), hex. Write-only: never returned.",
    example: '80f6a2bd0c7d4e3c8f5b1e4d9a6c2f7e80f6a2bd0c7d4e3c8f5b1e4d9a6c2f7e',
  })
  @Required()
  @rule('pushToken', APNS_TOKEN)
  push_token: string;
}

/** The alert an update shows (and sounds) besides changing the activity. */
export class LiveActivityAlertDto {
  @ApiPropertyOptional({ example: 'Delivery update' })
  @OptionalNotNull()
  @Str({ min: 1, max: 256 })
  title?: string;
  @ApiPropertyOptional({ example: 'Your driver is 2 minutes away.' })
  @OptionalNotNull()
  @Str({ min: 1, max: 4000 })
  body?: string;
  @ApiPropertyOptional({ description: 'A sound file of the app, or `default`.', example: 'default' })
  @OptionalNotNull()
  @Str({ min: 1, max: 255 })
  sound?: string;
}

const onlyWithEnd = (value: unknown, body: Record<string, unknown>) =>
  value !== undefined && value !== null && body.event !== 'end' ? 'The :attribute field is only allowed when event is end.' : null;

/** POST /live-activities/{activity_id}/updates: an update or the end of the activity. */
export class LiveActivityUpdateDto {
  @ApiProperty({ description: '`update` changes the activity; `end` ends it (it stays until `dismissal_date`, or iOS removes it).', example: 'update' })
  @Required()
  @In(LIVE_ACTIVITY_EVENTS)
  event: LiveActivityEvent;
  @ApiProperty({
    description: "The activity's new `ContentState`, as your Swift `Codable` type decodes it; at most 4 KiB as JSON.",
    example: { status: 'out_for_delivery', eta_minutes: 2 },
  })
  @Required()
  @PlainObject({ maxBytes: CONTENT_STATE_MAX_BYTES })
  content_state: Record<string, unknown>;
  @ApiPropertyOptional({ description: 'Shown (and sounded) on the device with the update.' })
  @OptionalNotNull()
  @Nested(() => LiveActivityAlertDto)
  alert?: LiveActivityAlertDto;
  @ApiPropertyOptional({ description: 'When the system marks the activity out of date (`aps.stale-date`).', example: '2026-11-22T10:30:00.000Z' })
  @Optional()
  @Instant()
  stale_date?: string | null;
  @ApiPropertyOptional({
    description: 'Only with `end`: when the ended activity leaves the Lock Screen (`aps.dismissal-date`).',
    example: '2026-11-22T11:00:00.000Z',
  })
  @Optional()
  @Instant()
  @WithSiblings('dismissalDate', onlyWithEnd)
  dismissal_date?: string | null;
  @ApiPropertyOptional({ description: "Which of the app's activities the Dynamic Island shows first (`aps.relevance-score`).", example: 0.5 })
  @Optional()
  @Num({ min: 0, max: 1 })
  relevance_score?: number | null;
  @ApiPropertyOptional({
    description: '`normal` (APNs priority 5, the default) or `high` (10). Apple budgets priority 10 Live Activity updates: use it for what must show at once.',
    example: 'normal',
  })
  @OptionalNotNull()
  @In(['high', 'normal'])
  priority?: 'high' | 'normal';
}

/** POST /live-activity-channels: a new broadcast channel. */
export class CreateChannelDto {
  @ApiProperty({
    description: "`none`: APNs keeps no broadcast for devices that are offline; `most_recent`: it keeps the latest (APNs' message-storage-policy 0 or 1).",
    example: 'none',
  })
  @Required()
  @In(CHANNEL_STORAGES)
  storage: ChannelStorage;
}
