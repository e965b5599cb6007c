import { NotificationFailureReason } from '../../common/vocabulary';
import { ApiProperty } from '@nestjs/swagger';
import { DELIVERY_STATUSES, type DeliveryStatus, SKIP_REASONS } from '../../common/vocabulary';
import type { Expect, SameKeys } from '../../common/http/api-responses';
import { type Platform, PLATFORMS } from '../../common/platform';
import type { DeliveryResource as MappedDelivery } from '../trace/delivery.resource';
import { EVENT_TYPES, type EventType } from '../events/notification-event.entity';
import type { NotificationResource as MappedNotification } from '../notification.resource';
import { NotificationOptionsDto } from './send-notification.dto';
import { AB_PHASES, type AbPhase } from '../../common/variants';

// OpenAPI shapes of what toNotificationResource() returns: every field present, unset ones null.

const TIMESTAMP = { type: String, format: 'date-time', example: '2026-11-22T10:00:00.000Z' } as const;

export class NotificationContentResource {
  @ApiProperty({ type: String, nullable: true, description: 'Null for a silent send without `notification`.', example: 'Shipped' }) title: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Null for a silent send without `notification`.', example: 'Your order is on its way' })
  body: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'https://cdn.example.com/box.png' }) image_url: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'myapp://orders/42' }) action_url: string | null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    description: 'The variants by language tag, as sent (docs/api.md#localization); null when none.',
    additionalProperties: {
      type: 'object',
      properties: { title: { type: 'string' }, body: { type: 'string' }, image_url: { type: 'string' }, action_url: { type: 'string' } },
    },
    example: { fr: { title: 'Expédiée' } },
  })
  localizations: Record<string, Record<string, string>> | null;
}

export class NotificationStatistics {
  @ApiProperty({ type: 'integer', description: 'Target users with at least one installation in the app.', example: 2 }) users: number;
  @ApiProperty({
    type: 'integer',
    description: "Installations of those users when the fan-out ran; a throttled send's whole audience from its start (docs/api.md#pacing).",
    example: 3,
  })
  installations: number;
  @ApiProperty({ type: 'integer', description: 'Messages the provider accepted.', example: 0 }) accepted: number;
  @ApiProperty({ type: 'integer', description: 'Installations that reported `received`.', example: 0 }) received: number;
  @ApiProperty({ type: 'integer', description: 'Installations that reported `displayed`.', example: 0 }) displayed: number;
  @ApiProperty({ type: 'integer', description: 'Installations that reported `opened`.', example: 0 }) opened: number;
  @ApiProperty({ type: 'integer', description: 'Failed for good (including invalidated tokens).', example: 0 }) failed: number;
  @ApiProperty({
    type: 'integer',
    description: 'Not attempted (permission denied, invalidated, no token, platform filtered, silent on the web, no credentials, cancelled).',
    example: 0,
  })
  skipped: number;
  @ApiProperty({ type: 'integer', description: 'Inbox messages stored, one per user (docs/api.md#inbox); 0 without the inbox channel.', example: 0 })
  inbox_stored: number;
  @ApiProperty({ type: 'integer', description: 'Of those, messages their user has read.', example: 0 }) inbox_read: number;
}

export class NotificationResource {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: () => NotificationContentResource }) notification: NotificationContentResource;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, example: { order_id: 42 } }) data: Record<string, unknown> | null;
  @ApiProperty({ type: () => NotificationOptionsDto, nullable: true }) options: NotificationOptionsDto | null;
  @ApiProperty({ type: Boolean, description: 'A dry run (`options.dry_run`): nothing was delivered.', example: false }) dry_run: boolean;
  @ApiProperty({
    type: 'integer',
    description: 'Distinct user ids in the request; for the other recipient kinds, distinct users of the installations the fan-out found (0 until it ran).',
    example: 2,
  })
  target_users: number;
  @ApiProperty({ type: () => NotificationStatistics }) statistics: NotificationStatistics;
  @ApiProperty(TIMESTAMP) created_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When the fan-out began.' }) processing_started_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When every installation was accepted, failed or skipped.' }) completed_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'The fan-out starts no earlier than this; null for an immediate send.' }) send_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When the notification was cancelled.' }) canceled_at: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: `Why the send failed as a whole before any delivery (docs/api.md#notification-resource): ${Object.values(NotificationFailureReason).join(', ')}; null otherwise.`,
    example: null,
  })
  failure_reason: string | null;
  @ApiProperty({
    type: () => NotificationTemplateRef,
    nullable: true,
    description: 'The template it was sent from (docs/api.md#sending-with-a-template); null for an inline notification.',
  })
  template: NotificationTemplateRef | null;
  @ApiProperty({
    type: () => [NotificationVariant],
    nullable: true,
    description: "The send's variants with their statistics (docs/api.md#variants); null when none.",
  })
  variants: NotificationVariant[] | null;
  @ApiProperty({ type: () => NotificationAbTest, nullable: true, description: 'The A/B test (docs/api.md#a-b-test-with-a-winner); null without one.' })
  ab_test: NotificationAbTest | null;
}

export class NotificationVariant {
  @ApiProperty({ type: String, example: 'short' }) key: string;
  @ApiProperty({ type: 'integer', example: 50 }) weight: number;
  @ApiProperty({
    type: () => NotificationStatistics,
    description: "As the notification's, for this variant's installations (inbox counts are 0: variants do not go to the inbox).",
  })
  statistics: NotificationStatistics;
}

export class NotificationAbTest {
  @ApiProperty({
    enum: AB_PHASES,
    description:
      '`sample`: only the sample is sent; `winner`: decided, the winner goes to everyone else; `done`: the notification has completed (or was cancelled).',
    example: 'sample',
  })
  phase: AbPhase;
  @ApiProperty({ type: String, nullable: true, description: "The winning variant's key, once decided.", example: null }) winner: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When the winner was decided.' }) decided_at: string | null;
}

export class NotificationTemplateRef {
  @ApiProperty({ type: String, example: 'order_shipped' }) key: string;
  @ApiProperty({ type: 'integer', example: 2 }) version: number;
}

export class AcceptedMeta {
  @ApiProperty({ type: Boolean, description: 'Always true: the notification is stored and queued.', example: true }) accepted: true;
}

export class SendNotificationResponse {
  @ApiProperty({ type: () => NotificationResource }) data: NotificationResource;
  @ApiProperty({ type: () => AcceptedMeta }) meta: AcceptedMeta;
}

export class NotificationEnvelope {
  @ApiProperty({ type: () => NotificationResource }) data: NotificationResource;
}

export class PageMeta {
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.' })
  next_cursor: string | null;
}

export class NotificationPage {
  @ApiProperty({ type: () => [NotificationResource] }) data: NotificationResource[];
  @ApiProperty({ type: () => PageMeta }) meta: PageMeta;
}

export class RecordedEvent {
  @ApiProperty({ format: 'uuid' }) notification_id: string;
  @ApiProperty({ example: '3f1c-device-install' }) installation_id: string;
  @ApiProperty({ enum: EVENT_TYPES, example: 'opened' }) type: EventType;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-22T10:00:05.000Z' }) occurred_at: string | null;
  @ApiProperty({ description: 'false when this installation had already reported this event type (the repeat is ignored).', example: true })
  counted: boolean;
}

export class RecordedEventEnvelope {
  @ApiProperty({ type: () => RecordedEvent }) data: RecordedEvent;
}

/** Fails to compile when the documented fields drift from what the API returns. */
export type NotificationDocMatches = [
  Expect<SameKeys<NotificationResource, MappedNotification>>,
  Expect<SameKeys<NotificationContentResource, MappedNotification['notification']>>,
  Expect<SameKeys<NotificationStatistics, MappedNotification['statistics']>>,
  Expect<SameKeys<NotificationVariant, NonNullable<MappedNotification['variants']>[number]>>,
  Expect<SameKeys<NotificationAbTest, NonNullable<MappedNotification['ab_test']>>>,
];

export class DeliveryEntry {
  @ApiProperty({ description: "The client's installation id; kept after the installation is deleted.", example: '3f1c-device-install' })
  installation_id: string;
  @ApiProperty({ type: String, nullable: true, description: "The installation's user when the fan-out considered it.", example: 'user-1' })
  user_id: string | null;
  @ApiProperty({ enum: PLATFORMS, example: 'ios' }) platform: Platform;
  @ApiProperty({
    enum: DELIVERY_STATUSES,
    description:
      '`scheduled`: waiting for its local time; `pending`: due, or waiting for a retry; `sending`: a provider is being asked; then `accepted`, `failed` or `skipped`.',
    example: 'accepted',
  })
  status: DeliveryStatus;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      `Why skipped (${SKIP_REASONS.map((r) => `\`${r}\``).join(', ')}) or failed ` +
      "(the provider's reason, e.g. `BadDeviceToken`, `UNREGISTERED`); for a pending retry, the last retryable reason; else null.",
    example: null,
  })
  reason: string | null;
  @ApiProperty({ type: 'integer', description: 'Provider attempts so far.', example: 1 }) attempts: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "The provider's id of the accepted message, what a support ticket with the provider asks for: APNs' `apns-id` (then a space and `apns-unique-id` when Apple returns one), " +
      "FCM's message `name`, Huawei's `requestId`, a Web Push service's `Location`; null until accepted, and when the provider gave none.",
    example: 'projects/my-project/messages/0:1700000000000000%abc123',
  })
  provider_message_id: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When it is due (its local time or the send_at); null for an immediate send.' })
  scheduled_for: string | null;
  @ApiProperty({ ...TIMESTAMP, description: 'When its status last changed.' }) updated_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When the installation reported `received`.' }) received_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When the installation reported `displayed`.' }) displayed_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When the installation reported `opened`.' }) opened_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The web action button that was clicked, as the `opened` event reported it.', example: null })
  opened_action: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "Its variant's key (docs/api.md#variants); null for a send without variants, and for a delivery held for an A/B test's winner.",
    example: null,
  })
  variant: string | null;
}

export class DeliveryPage {
  @ApiProperty({ type: () => [DeliveryEntry] }) data: DeliveryEntry[];
  @ApiProperty({ type: () => PageMeta }) meta: PageMeta;
}

/** Fails to compile when the documented delivery fields drift from what the trace returns. */
export type DeliveryDocMatches = [Expect<SameKeys<DeliveryEntry, MappedDelivery>>];
