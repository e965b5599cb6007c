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
  /** A marketing send to an installation that already had the app's frequency cap of them (docs/api.md#pacing). */
  FrequencyCapped: 'FrequencyCapped',
  /** A marketing send whose `ttl` would run out before the installation's quiet hours end (docs/api.md#pacing). */
  QuietHours: 'QuietHours',
  /** A dry run (docs/api.md#dry-runs): everything but the delivery; FCM validated the message. */
  DryRun: 'DryRun',
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

/**
 * Each reason of the delivery trace in plain words, for the operator dashboard: ours (skips and
 * failures the service decides), the providers' commonest, and the transport errors by their first
 * word (`ENOTFOUND`, `HTTP`: the dashboard looks a reason up whole, then by that word). A reason not
 * listed is shown as it is.
 */
export const REASON_EXPLANATIONS: Record<string, string> = {
  [SkipReason.PermissionDenied]: 'The installation reported that the user turned notifications off.',
  [SkipReason.Invalidated]: 'A provider had refused this installation’s token before, so it is no longer sent to.',
  [SkipReason.Deleted]: 'The installation was deleted between the fan-out and the attempt.',
  [SkipReason.NoToken]: 'The installation has no push token or subscription yet.',
  [SkipReason.NoCredentials]: 'The app has no credentials for this platform’s push service.',
  [SkipReason.PlatformExcluded]: 'The send’s options.platforms left this platform out.',
  [SkipReason.SilentNotSupported]: 'A silent send: browsers must show every push, so web installations are left out.',
  [SkipReason.Canceled]: 'The notification was cancelled before this delivery was attempted.',
  [SkipReason.FrequencyCapped]: 'A marketing send: the installation had already had the app’s frequency cap of marketing messages in its window.',
  [SkipReason.DryRun]: 'A dry run: everything but the delivery (FCM validated the message; APNs and Web Push were not called).',
  [SkipReason.NoLiveActivityToken]: 'A send starting a Live Activity: this iOS installation has no push-to-start token for its type.',
  [SkipReason.QuietHours]: 'A marketing send held for the app’s quiet hours on the device’s clock, and its ttl ran out before they ended.',
  [FailureReason.ApnsNotConfigured]: 'The APNs credentials could not be used when it was attempted.',
  [FailureReason.FcmNotConfigured]: 'The FCM credentials could not be used when it was attempted.',
  [FailureReason.VapidNotConfigured]: 'The Web Push (VAPID) keys could not be used when it was attempted.',
  [FailureReason.MissingDeviceToken]: 'The iOS installation has no device token.',
  [FailureReason.MissingRegistrationToken]: 'The Android installation has no registration token.',
  [FailureReason.MissingSubscription]: 'The web installation has no push subscription.',
  [FailureReason.InvalidSubscription]: 'The web installation’s push subscription is malformed.',
  [FailureReason.EndpointNotAllowed]: 'The subscription’s endpoint is not a known browser push service (WEB_PUSH_ALLOWED_HOSTS).',
  [FailureReason.PrivateAddress]: 'The subscription’s endpoint resolves to a private address, which is never called.',
  [FailureReason.InvalidProviderKey]: 'The push service refused the app’s key or certificate.',
  [FailureReason.PayloadTooLarge]: 'The message is larger than the push service accepts.',
  BadDeviceToken: 'APNs: the device token is not valid for this app and environment (sandbox or production).',
  Unregistered: 'APNs: the app was uninstalled or the token is no longer valid.',
  UNREGISTERED: 'FCM: the app was uninstalled or the token expired.',
  Gone: 'Web Push: the browser unsubscribed.',
  DeviceTokenNotForTopic: 'APNs: the device token belongs to another app (bundle id) than the credentials’ topic.',
  TopicDisallowed: 'APNs: the key may not send to this app’s topic (bundle id).',
  InvalidProviderToken: 'APNs: the key id, team id or key was refused; check the APNs credentials.',
  ExpiredProviderToken: 'APNs: the signed token had expired; it is renewed and the delivery retried.',
  TooManyRequests: 'The push service asked to slow down; the delivery is retried later.',
  ServiceUnavailable: 'The push service was unavailable; the delivery is retried later.',
  INVALID_ARGUMENT: 'FCM: the registration token is malformed or not for this project.',
  SENDER_ID_MISMATCH: 'FCM: the registration token belongs to another Firebase project.',
  QUOTA_EXCEEDED: 'FCM: the project’s sending quota was exceeded; the delivery is retried later.',
  UNAVAILABLE: 'FCM was unavailable; the delivery is retried later.',
  INTERNAL: 'FCM had an internal error; the delivery is retried later.',
  UNAUTHENTICATED: 'FCM refused the service account’s credentials; check the FCM credentials.',
  ENOTFOUND: 'The push service’s host name did not resolve (DNS, or no network).',
  ECONNREFUSED: 'The push service refused the connection.',
  ECONNRESET: 'The connection to the push service was cut; the delivery is retried.',
  Timeout: 'The push service did not answer in time; the delivery is retried.',
  HTTP: 'The push service answered with this HTTP status and no reason of its own.',
};
/** What a send is (docs/api.md#pacing): frequency caps and quiet hours apply to marketing sends only. */
export const NOTIFICATION_CATEGORIES = ['transactional', 'marketing'] as const;
export type NotificationCategory = (typeof NOTIFICATION_CATEGORIES)[number];

/** An installation's notification permission (docs/api.md#installation-resource): `denied` is skipped, `unknown` is sent to. */
export const PERMISSIONS = ['granted', 'denied', 'unknown'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Which recipients key a send used (docs/api.md#recipients). */
export const RECIPIENT_KINDS = ['user_ids', 'installation_ids', 'tags', 'filter', 'all'] as const;
export type RecipientKind = (typeof RECIPIENT_KINDS)[number];

/** Where a notification stands, as the operator dashboard shows it (notifications/notification-status.ts decides). */
export const NOTIFICATION_STATUSES = ['scheduled', 'sending', 'completed', 'canceled'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];
/**
 * How a completed notification went, as the dashboard's badge says it (notifications/notification-status.ts
 * decides): every attempt accepted; some failed; every attempt failed; nothing attempted (all skipped, or
 * no installation at all).
 */
export const NOTIFICATION_OUTCOMES = ['delivered', 'partly_failed', 'failed', 'nothing_sent'] as const;
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];
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
