import { OPERATOR_ROLES, type OperatorRole } from '../../common/vocabulary';
import { ApiProperty } from '@nestjs/swagger';
import type { AppSummary } from '../../apps/apps.service';
import type { AppSettings } from '../../apps/app-settings';
import { AppSettingsDto } from '../../apps/dto/app-settings.dto';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../common/vocabulary';
import type { Expect, SameKeys } from '../../common/http/api-responses';
import type { Platform } from '../../common/platform';
import { WEBHOOK_EVENT_TYPES } from '../../common/webhook-events';
import type { CredentialsSummary } from '../../credentials/credentials.service';
import { InstallationResource } from '../../installations/dto/installation-response.dto';
import { AudienceCount } from '../../notifications/dto/count-audience.dto';
import { DeliveryEntry, NotificationResource, PageMeta } from '../../notifications/dto/notification-response.dto';
import type { OperatorDelivery } from '../../notifications/trace/delivery.resource';
import { NOTIFICATION_OUTCOMES, NOTIFICATION_STATUSES, type NotificationOutcome, type NotificationStatus } from '../../common/vocabulary';
import { OperatorNotification } from '../../notifications/notification-status';
import { INSPECTED_QUEUES } from '../../queue/queue-inspector';
import { LIVE_ACTIVITY_EVENTS, LIVE_ACTIVITY_UPDATE_STATUSES } from '../../common/vocabulary';
import { BroadcastResource, ChannelResource, LiveActivityResource } from '../../live-activities/dto/live-activity-response.dto';
import { TopicResource } from '../../topics/dto/topic.dto';
import type { WebhooksService } from '../../webhooks/webhooks.service';
import { type AdminService, type MinutePoint, QUEUE_STATES } from '../admin.service';

// OpenAPI shapes of what the operator dashboard's API answers (admin/admin-openapi.ts builds its
// document from them; clients/admin's types are generated from that document).

const TIMESTAMP = { type: String, format: 'date-time', example: '2026-11-22T10:00:00.000Z' } as const;
const COUNT = { type: 'integer', minimum: 0 } as const;

type Answer<K extends keyof AdminService> = AdminService[K] extends (...args: never[]) => Promise<infer T> ? T : never;
type WebhookFailures = Awaited<ReturnType<WebhooksService['failures']>>;
type RecipientKind = OperatorNotification['target']['kind'];

/** A role for one app, or for every app (`app_id` null): docs/api.md#roles. */
export class OperatorGrantResource {
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The app, or null for every app.' }) app_id: string | null;
  @ApiProperty({ enum: OPERATOR_ROLES, enumName: 'OperatorRole' }) role: OperatorRole;
}

export class AdminSessionResource {
  @ApiProperty({ description: "The operator's e-mail (ADMIN_USER for the bootstrap owner).", example: 'ops@example.com' }) user: string;
  @ApiProperty({ format: 'uuid' }) operator_id: string;
  @ApiProperty({ type: () => [OperatorGrantResource], description: "The operator's roles: what the dashboard offers them." }) grants: OperatorGrantResource[];
  @ApiProperty({ description: 'Sent back in `X-CSRF-Token` on every POST, PUT and DELETE of this session.' }) csrf_token: string;
  @ApiProperty({ ...TIMESTAMP, description: 'When the session cookie stops being accepted.' }) expires_at: string;
}

export class AdminSessionEnvelope {
  @ApiProperty({ type: () => AdminSessionResource }) data: AdminSessionResource;
}

export class AdminSessionOrNoneEnvelope {
  @ApiProperty({ type: () => AdminSessionResource, nullable: true, description: 'null without a valid session: the page shows its login form.' })
  data: AdminSessionResource | null;
}

export class AppResource {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'My app' }) name: string;
  @ApiProperty(TIMESTAMP) created_at: string;
}

export class AppEnvelope {
  @ApiProperty({ type: () => AppResource }) data: AppResource;
}

export class InstallationCounts {
  @ApiProperty({ ...COUNT, description: 'Live (not deleted) iOS installations.' }) ios: number;
  @ApiProperty({ ...COUNT, description: 'Live Android installations.' }) android: number;
  @ApiProperty({ ...COUNT, description: 'Live web installations.' }) web: number;
  @ApiProperty({ ...COUNT, description: 'Live Huawei installations.' }) huawei: number;
  @ApiProperty(COUNT) total: number;
}

export class ApnsSummary {
  @ApiProperty() key_id: string;
  @ApiProperty() team_id: string;
  @ApiProperty({ description: 'The bundle id.' }) topic: string;
  @ApiProperty({ description: 'Production APNs, else the sandbox.' }) production: boolean;
}

export class FcmSummary {
  @ApiProperty() project_id: string;
  @ApiProperty() client_email: string;
}

export class WebPushSummary {
  @ApiProperty({ description: 'The VAPID subject (mailto: or https:).' }) subject: string;
  @ApiProperty({ description: 'The VAPID public key (base64url).' }) public_key: string;
}

export class HmsSummary {
  @ApiProperty({ description: 'The app id of AppGallery Connect.' }) app_id: string;
  @ApiProperty({ description: 'The OAuth 2.0 client id.' }) client_id: string;
}

/** What an app has credentials for, without any secret; null: none for that provider. */
export class AppCredentials {
  @ApiProperty({ type: () => ApnsSummary, nullable: true }) apns: ApnsSummary | null;
  @ApiProperty({ type: () => FcmSummary, nullable: true }) fcm: FcmSummary | null;
  @ApiProperty({ type: () => WebPushSummary, nullable: true }) web_push: WebPushSummary | null;
  @ApiProperty({ type: () => HmsSummary, nullable: true, description: 'Huawei Push Kit.' }) hms: HmsSummary | null;
}

export class AdminAppSummary extends AppResource {
  @ApiProperty({ type: () => InstallationCounts }) installations: InstallationCounts;
  @ApiProperty({ type: () => AppCredentials }) credentials: AppCredentials;
  @ApiProperty({ ...COUNT, description: 'Notifications created in the last 24 hours.' }) notifications_24h: number;
  @ApiProperty({ type: () => AppSettingsDto, description: 'Frequency cap, quiet hours (docs/api.md#pacing) and identity verification.' })
  settings: AppSettingsDto;
}

export class AdminAppList {
  @ApiProperty({ type: () => [AdminAppSummary] }) data: AdminAppSummary[];
}

/** Every recipients key of a send (docs/api.md#recipients); a Record, so a kind added to the row type must be added here. */
const RECIPIENT_KINDS = Object.keys({ user_ids: 1, installation_ids: 1, tags: 1, filter: 1, all: 1, topic: 1 } satisfies Record<RecipientKind, 1>);

export class NotificationTarget {
  @ApiProperty({ enum: RECIPIENT_KINDS, description: 'The recipients key the send used.', example: 'user_ids' })
  kind: RecipientKind;
  @ApiProperty({ ...COUNT, nullable: true, description: 'Distinct user ids sent to, for `user_ids`; else null.', example: 2 }) users: number | null;
  @ApiProperty({ type: [String], nullable: true, description: 'The tags, for `tags`; else null.', example: null }) tags: string[] | null;
}

/** The API's Notification resource, with where it stands and whom it targeted. */
export class OperatorNotificationResource extends NotificationResource {
  @ApiProperty({ enum: NOTIFICATION_STATUSES, example: 'completed' }) status: NotificationStatus;
  @ApiProperty({
    enum: NOTIFICATION_OUTCOMES,
    nullable: true,
    description:
      'How it went, once completed (else null): `delivered`, every attempt accepted; `partly_failed`, some failed; `failed`, every attempt failed; `nothing_sent`, nothing attempted (all skipped, or no installation).',
    example: 'delivered',
  })
  outcome: NotificationOutcome | null;
  @ApiProperty({ description: 'It has neither completed nor been cancelled yet.' }) cancelable: boolean;
  @ApiProperty({ type: () => NotificationTarget }) target: NotificationTarget;
}

export class OperatorNotificationEnvelope {
  @ApiProperty({ type: () => OperatorNotificationResource }) data: OperatorNotificationResource;
}

export class OperatorNotificationPage {
  @ApiProperty({ type: () => [OperatorNotificationResource] }) data: OperatorNotificationResource[];
  @ApiProperty({ type: () => PageMeta }) meta: PageMeta;
}

/** Outcomes of one minute, the shape every chart of the dashboard draws. */
export class MinutePointResource {
  @ApiProperty({ ...TIMESTAMP, description: 'The start of the minute.' }) minute: string;
  @ApiProperty(COUNT) accepted: number;
  @ApiProperty(COUNT) failed: number;
  @ApiProperty(COUNT) skipped: number;
  @ApiProperty({ ...COUNT, description: 'Deliveries that became pending again, to be retried.' }) retried: number;
}

export class NotificationDetailResource extends OperatorNotificationResource {
  @ApiProperty({ type: () => [MinutePointResource], description: 'Only the minutes with outcomes, oldest first.' }) minutes: MinutePointResource[];
}

export class NotificationDetailEnvelope {
  @ApiProperty({ type: () => NotificationDetailResource }) data: NotificationDetailResource;
}

/** A trace entry (docs/api.md#delivery-trace) with what the operator needs besides. */
export class OperatorDeliveryEntry extends DeliveryEntry {
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When a delivery still to send is next attempted (its time, or its next retry); else null.' })
  next_attempt_at: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The `localizations` key the installation's device.locale picks (docs/api.md#localization); null: the default content.",
    example: 'fr',
  })
  localization: string | null;
}

export class OperatorDeliveryPage {
  @ApiProperty({ type: () => [OperatorDeliveryEntry] }) data: OperatorDeliveryEntry[];
  @ApiProperty({ type: () => PageMeta }) meta: PageMeta;
}

export class InstallationDelivery {
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'accepted' }) status: DeliveryStatus;
  @ApiProperty({ type: String, nullable: true, description: 'Why skipped or failed, as the delivery trace shows it; else null.', example: null })
  reason: string | null;
  @ApiProperty(TIMESTAMP) updated_at: string;
}

/** A notification that targeted the installation, with what its delivery to it became. */
export class InstallationNotification extends OperatorNotificationResource {
  @ApiProperty({ type: () => InstallationDelivery }) delivery: InstallationDelivery;
}

export class InstallationLookup {
  @ApiProperty({ type: () => InstallationResource }) installation: InstallationResource;
  @ApiProperty({ type: () => [InstallationNotification], description: "Newest first, among the app's latest notifications." })
  notifications: InstallationNotification[];
}

export class InstallationBrowseMeta {
  @ApiProperty({ type: String, nullable: true, description: 'Give it as `cursor` for the next page; null on the last.' }) next_cursor: string | null;
  @ApiProperty({ type: () => AudienceCount, nullable: true, description: 'docs/api.md#count-an-audience, on the first page only (no `cursor`).' })
  count: AudienceCount | null;
}

export class InstallationBrowsePage {
  @ApiProperty({ type: () => [InstallationResource] }) data: InstallationResource[];
  @ApiProperty({ type: () => InstallationBrowseMeta }) meta: InstallationBrowseMeta;
}

export class InstallationLookupList {
  @ApiProperty({ type: () => [InstallationLookup] }) data: InstallationLookup[];
}

export class QueueJobCounts {
  @ApiProperty(COUNT) waiting: number;
  @ApiProperty(COUNT) active: number;
  @ApiProperty(COUNT) delayed: number;
  @ApiProperty(COUNT) prioritized: number;
  @ApiProperty(COUNT) failed: number;
}

export class QueueDepth {
  @ApiProperty({ enum: INSPECTED_QUEUES, example: 'deliver' }) name: string;
  @ApiProperty({ type: () => QueueJobCounts }) counts: QueueJobCounts;
}

export class WebhookTrouble {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) app_id: string;
  @ApiProperty({ example: 'https://example.com/hooks/push' }) url: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, example: 'notification.completed' }) type: string;
  @ApiProperty({ format: 'uuid', description: 'The notification or installation the event is about.' }) subject_id: string;
  @ApiProperty({ enum: ['pending', 'failed'], description: '`failed`: given up; `pending`: being retried.' })
  status: WebhookFailures['recent'][number]['status'];
  @ApiProperty(COUNT) attempts: number;
  @ApiProperty({ type: String, nullable: true, description: 'Why the last attempt failed: the status code or the network error.' }) last_error: string | null;
  @ApiProperty(TIMESTAMP) created_at: string;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When it was given up; null while retried.' }) finished_at: string | null;
}

export class WebhookTroubles {
  @ApiProperty({ ...COUNT, description: 'The window of `failed`, in hours.', example: 24 }) hours: number;
  @ApiProperty({ ...COUNT, description: 'Messages given up within the window.' }) failed: number;
  @ApiProperty({ ...COUNT, description: 'Messages being retried now.' }) retrying: number;
  @ApiProperty({ type: () => [WebhookTrouble], description: 'The latest of them, newest first.' }) recent: WebhookTrouble[];
}

export class AdminOverview {
  @ApiProperty({ description: "true: every app's figures; false: only the apps of an operator of some apps, without the queues." })
  every_app: boolean;
  @ApiProperty({
    type: () => [MinutePointResource],
    description: "Every minute of the last hour, every app together (the operator's apps only, for an operator of some apps), oldest first.",
  })
  minutes: MinutePointResource[];
  @ApiProperty({
    type: () => [QueueDepth],
    nullable: true,
    description: "Job counts per queue; null when Redis did not answer in time, or for an operator of some apps (the queues hold every app's jobs).",
  })
  queues: QueueDepth[] | null;
  @ApiProperty({ type: () => WebhookTroubles }) webhooks: WebhookTroubles;
}

export class AdminOverviewEnvelope {
  @ApiProperty({ type: () => AdminOverview }) data: AdminOverview;
}

export class LastLiveActivityUpdate {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ ...COUNT, description: "Its number among the activity's updates, in the order the API accepted them (1 first).", example: 3 }) seq: number;
  @ApiProperty({ enum: LIVE_ACTIVITY_EVENTS, example: 'update' }) event: string;
  @ApiProperty({ enum: LIVE_ACTIVITY_UPDATE_STATUSES, example: 'accepted' }) status: string;
  @ApiProperty({ type: String, nullable: true, description: "`Superseded`, `ActivityEnded`, or APNs' reason when it failed.", example: null })
  reason: string | null;
  @ApiProperty({ ...TIMESTAMP, description: 'When the API accepted it: `aps.timestamp` is this instant in seconds.' }) created_at: string;
  @ApiProperty({ ...TIMESTAMP, description: 'When its status was last set.' }) updated_at: string;
}

export class AdminLiveActivity extends LiveActivityResource {
  @ApiProperty({ type: () => LastLiveActivityUpdate, nullable: true, description: 'Its newest update; null before the first.' })
  last_update: LastLiveActivityUpdate | null;
}

export class AdminChannel extends ChannelResource {
  @ApiProperty({
    type: () => BroadcastResource,
    nullable: true,
    description: 'Its newest broadcast, as `GET .../updates/{id}` answers it; null before the first.',
  })
  last_broadcast: BroadcastResource | null;
}

export class AdminLiveActivities {
  @ApiProperty({ type: () => [AdminLiveActivity], description: 'The newest `limit` activities, newest first.' }) activities: AdminLiveActivity[];
  @ApiProperty({ type: () => [AdminChannel], description: 'Every broadcast channel, newest first, each with its newest broadcast.' })
  channels: AdminChannel[];
  @ApiProperty({ ...COUNT, description: 'The most activities listed.', example: 100 }) limit: number;
}

export class AdminLiveActivitiesEnvelope {
  @ApiProperty({ type: () => AdminLiveActivities }) data: AdminLiveActivities;
}

export class AdminTopic extends TopicResource {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    nullable: true,
    description: 'The users a `recipients.topic` send would reach now (the audience count of docs/api.md#count-an-audience); null when it timed out.',
    example: 1200,
  })
  subscribers: number | null;
}

export class AdminTopicList {
  @ApiProperty({ type: () => [AdminTopic], description: 'By key.' }) data: AdminTopic[];
}

/** Fails to compile when the documented fields drift from what AdminService and the features' services return. */
export type AdminDocMatches = [
  Expect<SameKeys<AppResource, AppSummary>>,
  Expect<SameKeys<AdminAppSummary, Answer<'listApps'>[number]>>,
  Expect<SameKeys<AppCredentials, Omit<CredentialsSummary, 'app_id'>>>,
  Expect<SameKeys<AppSettingsDto, AppSettings>>,
  Expect<SameKeys<ApnsSummary, NonNullable<CredentialsSummary['apns']>>>,
  Expect<SameKeys<FcmSummary, NonNullable<CredentialsSummary['fcm']>>>,
  Expect<SameKeys<WebPushSummary, NonNullable<CredentialsSummary['web_push']>>>,
  Expect<SameKeys<InstallationCounts, Record<Platform | 'total', number>>>,
  Expect<SameKeys<OperatorNotificationResource, OperatorNotification>>,
  Expect<SameKeys<NotificationTarget, OperatorNotification['target']>>,
  Expect<SameKeys<NotificationDetailResource, Answer<'notification'>>>,
  Expect<SameKeys<MinutePointResource, MinutePoint>>,
  Expect<SameKeys<OperatorDeliveryEntry, OperatorDelivery>>,
  Expect<SameKeys<InstallationLookup, Answer<'lookUpInstallations'>[number]>>,
  Expect<SameKeys<InstallationBrowsePage, Answer<'browseInstallations'>>>,
  Expect<SameKeys<InstallationBrowseMeta, Answer<'browseInstallations'>['meta']>>,
  Expect<SameKeys<InstallationNotification, Answer<'lookUpInstallations'>[number]['notifications'][number]>>,
  Expect<SameKeys<InstallationDelivery, Answer<'lookUpInstallations'>[number]['notifications'][number]['delivery']>>,
  Expect<SameKeys<AdminOverview, Answer<'overview'>>>,
  Expect<SameKeys<QueueJobCounts, Record<(typeof QUEUE_STATES)[number], number>>>,
  Expect<SameKeys<WebhookTroubles, WebhookFailures>>,
  Expect<SameKeys<WebhookTrouble, WebhookFailures['recent'][number]>>,
  Expect<SameKeys<AdminLiveActivities, Answer<'liveActivities'>>>,
  Expect<SameKeys<AdminLiveActivity, Answer<'liveActivities'>['activities'][number]>>,
  Expect<SameKeys<AdminChannel, Answer<'liveActivities'>['channels'][number]>>,
  Expect<SameKeys<LastLiveActivityUpdate, NonNullable<Answer<'liveActivities'>['activities'][number]['last_update']>>>,
  Expect<SameKeys<AdminTopic, Answer<'topics'>[number]>>,
];
