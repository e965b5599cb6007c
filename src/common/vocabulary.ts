import type { Platform } from './platform';

/**
 * The service's words, each written once: services use these names, SQL receives them as
 * parameters (`= ANY($n)`, never a literal copied into the text), DTOs list them as enums in the
 * OpenAPI document, and the operator dashboard reads them from clients/admin/src/vocabulary.ts,
 * which `npm run vocabulary:sync` writes from this file (vocabulary-file.spec.ts fails when stale).
 */

/**
 * The states of one delivery (docs/api.md#delivery, #delivery-trace): `scheduled` until its local time,
 * `pending` when due (or waiting for a retry), `sending` while a provider is asked, then one of the
 * three ends. The worker writes them; the delivery trace filters on them.
 */
export const DELIVERY_STATUSES = ['scheduled', 'pending', 'sending', 'accepted', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Rows still to send: due (or waiting for a retry) or waiting for their local time. A cancel skips these. */
export const STILL_TO_SEND = ['pending', 'scheduled'] as const satisfies readonly DeliveryStatus[];

/** The ends of a delivery that carry a reason: failed (the provider's) or skipped (ours). */
export const REASONED_ENDS = ['failed', 'skipped'] as const satisfies readonly DeliveryStatus[];

/** Why a delivery was skipped (docs/api.md#delivery): decided by the service, never by a provider. */
export const SkipReason = {
  PermissionDenied: 'PermissionDenied',
  /** A provider refused the installation's token earlier. */
  Invalidated: 'Invalidated',
  /** Deleted between the fan-out and the attempt. */
  Deleted: 'Deleted',
  NoToken: 'NoToken',
  /** The app has no credentials for the platform's provider. */
  NoCredentials: 'NoCredentials',
  /** The send's `options.platforms` leaves the installation's platform out. */
  PlatformExcluded: 'PlatformExcluded',
  /** A silent send without `notification`: browsers must show every push (docs/api.md#silent-sends). */
  SilentNotSupported: 'SilentNotSupported',
  /** The notification was cancelled before the row was attempted (docs/api.md#scheduling). */
  Canceled: 'Canceled',
  /** A send starting a Live Activity: the iOS installation holds no start token for its type (docs/api.md#live-activity-starts). */
  NoLiveActivityToken: 'NoLiveActivityToken',
} as const;
export type SkipReason = (typeof SkipReason)[keyof typeof SkipReason];
export const SKIP_REASONS = Object.values(SkipReason);

/**
 * Failure reasons the service gives itself, beside the providers' own words (`BadDeviceToken`,
 * `UNREGISTERED`...), which are stored as the provider said them.
 */
export const FailureReason = {
  ApnsNotConfigured: 'ApnsNotConfigured',
  FcmNotConfigured: 'FcmNotConfigured',
  VapidNotConfigured: 'VapidNotConfigured',
  MissingDeviceToken: 'MissingDeviceToken',
  MissingRegistrationToken: 'MissingRegistrationToken',
  MissingSubscription: 'MissingSubscription',
  InvalidSubscription: 'InvalidSubscription',
  EndpointNotAllowed: 'EndpointNotAllowed',
  PrivateAddress: 'PrivateAddress',
  InvalidProviderKey: 'InvalidProviderKey',
  PayloadTooLarge: 'PayloadTooLarge',
} as const;
export type FailureReason = (typeof FailureReason)[keyof typeof FailureReason];

/** Reasons seen often enough that the dashboard offers them in its trace filter; any other can be typed. */
export const COMMON_REASONS: readonly string[] = [...SKIP_REASONS, 'BadDeviceToken', 'Unregistered', 'UNREGISTERED', 'Gone'];

/** An installation's notification permission (docs/api.md#installation-resource): `denied` is skipped, `unknown` is sent to. */
export const PERMISSIONS = ['granted', 'denied', 'unknown'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Which recipients key a send used (docs/api.md#recipients). */
export const RECIPIENT_KINDS = ['user_ids', 'installation_ids', 'tags', 'filter', 'all'] as const;
export type RecipientKind = (typeof RECIPIENT_KINDS)[number];

/** Where a notification stands, as the operator dashboard shows it (notifications/notification-status.ts decides). */
export const NOTIFICATION_STATUSES = ['scheduled', 'sending', 'completed', 'canceled'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];
/** The statuses a notification never leaves: nothing more happens to it. */
export const FINAL_NOTIFICATION_STATUSES = ['completed', 'canceled'] as const satisfies readonly NotificationStatus[];

/** The push services, by the id the metrics' `provider` label, the credentials summary and the completion log use. */
export const PROVIDER_IDS = ['apns', 'fcm', 'web_push'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** The provider that delivers to each platform. */
export const PROVIDER_OF: Record<Platform, ProviderId> = { ios: 'apns', android: 'fcm', web: 'web_push' };

/** Each provider as people read it (the dashboard, the CLI's messages). */
export const PROVIDER_LABELS: Record<ProviderId, string> = { apns: 'APNs', fcm: 'FCM', web_push: 'Web Push' };

/** Each provider as the CLI's `--provider` names it (`apps:credentials:remove`). */
export const PROVIDER_CLI_NAMES: Record<ProviderId, string> = { apns: 'apns', fcm: 'fcm', web_push: 'web-push' };

/** A webhook message's states (webhook_messages.status): owed, sent, or given up. */
export const WEBHOOK_MESSAGE_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookMessageStatus = (typeof WEBHOOK_MESSAGE_STATUSES)[number];

/** A Live Activity's states (docs/api.md#live-activities): `ended` by an `end`, a DELETE or APNs refusing its token. */
export const LIVE_ACTIVITY_STATUSES = ['active', 'ended'] as const;
export type LiveActivityStatus = (typeof LIVE_ACTIVITY_STATUSES)[number];

/** A Live Activity update's states: `pending` until APNs answers (or the worker skips it). */
export const LIVE_ACTIVITY_UPDATE_STATUSES = ['pending', 'accepted', 'failed', 'skipped'] as const;
export type LiveActivityUpdateStatus = (typeof LIVE_ACTIVITY_UPDATE_STATUSES)[number];

/** Live Activity update events the API takes (`start` is sent by a send's `options.live_activity`). */
export const LIVE_ACTIVITY_EVENTS = ['update', 'end'] as const;
export type LiveActivityEvent = (typeof LIVE_ACTIVITY_EVENTS)[number];

/** Why a Live Activity update was not sent (docs/api.md#live-activities). */
export const LiveActivitySkipReason = {
  /** APNs had already accepted a newer update of the same activity: the older state is never sent after it. */
  Superseded: 'Superseded',
  /** The activity ended (an `end`, a DELETE, a dead token) before the update was sent. */
  ActivityEnded: 'ActivityEnded',
} as const;
export type LiveActivitySkipReason = (typeof LiveActivitySkipReason)[keyof typeof LiveActivitySkipReason];

/** A broadcast channel's message storage at APNs (docs/api.md#live-activity-channels): `message-storage-policy` 0 or 1. */
export const CHANNEL_STORAGES = ['none', 'most_recent'] as const;
export type ChannelStorage = (typeof CHANNEL_STORAGES)[number];
