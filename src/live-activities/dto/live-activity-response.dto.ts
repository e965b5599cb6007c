import { ApiProperty } from '@nestjs/swagger';
import type { Expect, SameKeys } from '../../common/http/api-responses';
import { CHANNEL_STORAGES, LIVE_ACTIVITY_EVENTS, LIVE_ACTIVITY_STATUSES, LIVE_ACTIVITY_UPDATE_STATUSES } from '../../common/vocabulary';
import type { LiveActivityResource as MappedActivity, LiveActivityUpdateResource as MappedUpdate } from '../live-activity.resource';
import type { BroadcastResource as MappedBroadcast, ChannelResource as MappedChannel } from '../live-activity-channels.service';

const BROADCAST_STATUSES = ['pending', 'accepted', 'failed'];

// OpenAPI shapes of what live-activity.resource.ts returns: every field present, unset ones null.

const TIMESTAMP = { type: String, format: 'date-time', example: '2026-11-22T10:00:00.000Z' } as const;

export class LiveActivityResource {
  @ApiProperty({ maxLength: 255, description: "The activity's id, yours (ActivityKit's `Activity.id`).", example: 'B2C4D6E8-order-42' })
  activity_id: string;
  @ApiProperty({ maxLength: 255, description: 'The installation it runs on.', example: '3f1c-device-install' }) installation_id: string;
  @ApiProperty({ maxLength: 128, example: 'DeliveryAttributes' }) attributes_type: string;
  @ApiProperty({ enum: LIVE_ACTIVITY_STATUSES, description: '`ended` after an `end`, a DELETE, or APNs refusing its token.', example: 'active' })
  status: string;
  @ApiProperty(TIMESTAMP) created_at: string;
  @ApiProperty(TIMESTAMP) updated_at: string;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) ended_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: "APNs' reason when it refused the token, e.g. `Unregistered`.", example: null })
  invalid_reason: string | null;
}

export class LiveActivityEnvelope {
  @ApiProperty({ type: () => LiveActivityResource }) data: LiveActivityResource;
}

export class LiveActivityUpdateResource {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'B2C4D6E8-order-42' }) activity_id: string;
  @ApiProperty({ enum: LIVE_ACTIVITY_EVENTS, example: 'update' }) event: string;
  @ApiProperty({ enum: LIVE_ACTIVITY_UPDATE_STATUSES, example: 'pending' }) status: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "`Superseded` (a newer update was sent first), `ActivityEnded`, or APNs' reason when it failed.",
    example: null,
  })
  reason: string | null;
  @ApiProperty({ ...TIMESTAMP, description: 'When the API accepted it: `aps.timestamp` is this instant in seconds.' }) created_at: string;
}

export class LiveActivityUpdateEnvelope {
  @ApiProperty({ type: () => LiveActivityUpdateResource }) data: LiveActivityUpdateResource;
}

export class ChannelResource {
  @ApiProperty({
    description: "APNs' channel id (`apns-channel-id`): what the app passes to ActivityKit and sends use as `channel_id`.",
    example: 'dHN0LXNyY2gtY2hubA==',
  })
  id: string;
  @ApiProperty({ enum: CHANNEL_STORAGES, example: 'none' }) storage: string;
  @ApiProperty(TIMESTAMP) created_at: string;
}

export class ChannelEnvelope {
  @ApiProperty({ type: () => ChannelResource }) data: ChannelResource;
}

export class ChannelList {
  @ApiProperty({ type: () => [ChannelResource] }) data: ChannelResource[];
}

export class BroadcastResource {
  @ApiProperty({ format: 'uuid', description: 'The broadcast, readable at `GET .../updates/{id}`.' }) id: string;
  @ApiProperty({ example: 'dHN0LXNyY2gtY2hubA==' }) channel_id: string;
  @ApiProperty({ enum: LIVE_ACTIVITY_EVENTS, example: 'update' }) event: string;
  @ApiProperty({
    enum: BROADCAST_STATUSES,
    description: '`pending` until APNs accepts it (`accepted`) or it fails (`failed`: refused, or 429/5xx until the attempts ran out).',
    example: 'pending',
  })
  status: string;
  @ApiProperty({ type: String, nullable: true, description: "APNs' reason for the last refusal or retry.", example: null }) reason: string | null;
  @ApiProperty({ type: Number, description: 'Requests made to APNs so far.', example: 0 }) attempts: number;
  @ApiProperty({ ...TIMESTAMP, description: 'When the API accepted it: `aps.timestamp` is this instant in seconds.' }) created_at: string;
}

export class BroadcastEnvelope {
  @ApiProperty({ type: () => BroadcastResource }) data: BroadcastResource;
}

/** Fails to compile when the documented fields drift from what the API returns. */
export type LiveActivityDocMatches = [
  Expect<SameKeys<LiveActivityResource, MappedActivity>>,
  Expect<SameKeys<LiveActivityUpdateResource, MappedUpdate>>,
  Expect<SameKeys<ChannelResource, MappedChannel>>,
  Expect<SameKeys<BroadcastResource, MappedBroadcast>>,
];
