import type { Platform, PushProviderName } from './platform';

/** The service's words, each written once: SQL takes them as parameters, DTOs as enums, the dashboard via `npm run vocabulary:sync`. */

/** A delivery's states (docs/api.md#delivery-trace): `scheduled` until its local time, `pending` when due, then `sending`, then an end. */
export const DELIVERY_STATUSES = ['scheduled', 'pending', 'sending', 'accepted', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Rows still to send; a cancel skips these. */
export const STILL_TO_SEND = ['pending', 'scheduled'] as const satisfies readonly DeliveryStatus[];

export const REASONED_ENDS = ['failed', 'skipped'] as const satisfies readonly DeliveryStatus[];

/** Why a delivery was skipped (docs/api.md#delivery), in plain words in REASON_EXPLANATIONS; decided by the service, never a provider. */
export const SkipReason = {
  PermissionDenied: 'PermissionDenied',
  Invalidated: 'Invalidated',
  Deleted: 'Deleted',
  NoToken: 'NoToken',
  NoCredentials: 'NoCredentials',
  PlatformExcluded: 'PlatformExcluded',
  SilentNotSupported: 'SilentNotSupported',
  Canceled: 'Canceled',
  FrequencyCapped: 'FrequencyCapped',
  QuietHours: 'QuietHours',
  DryRun: 'DryRun',
  NoLiveActivityToken: 'NoLiveActivityToken',
  NoWidgetToken: 'NoWidgetToken',
  Unsubscribed: 'Unsubscribed',
  PushDisabled: 'PushDisabled',
  RenderFailed: 'RenderFailed',
  PayloadTooLarge: 'PayloadTooLarge',
} as const;
export type SkipReason = (typeof SkipReason)[keyof typeof SkipReason];
export const SKIP_REASONS = Object.values(SkipReason);

/** Failure reasons the service gives itself; the providers' own are stored as they said them. */
export const FailureReason = {
  ApnsNotConfigured: 'ApnsNotConfigured',
  FcmNotConfigured: 'FcmNotConfigured',
  VapidNotConfigured: 'VapidNotConfigured',
  HmsNotConfigured: 'HmsNotConfigured',
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

/** Why a whole send failed before any delivery (docs/api.md#notification-resource): a notification's `failure_reason`. */
export const NotificationFailureReason = {
  AudienceTimedOut: 'AudienceTimedOut',
} as const;
export type NotificationFailureReason = (typeof NotificationFailureReason)[keyof typeof NotificationFailureReason];

export const COMMON_REASONS: readonly string[] = [...SKIP_REASONS, 'BadDeviceToken', 'Unregistered', 'UNREGISTERED', 'Gone'];

/** Each reason in plain words for the dashboard, which looks a reason up whole, then by its first word. */
export const REASON_EXPLANATIONS: Record<string, string> = {
  [SkipReason.PermissionDenied]: 'The installation reported that the user turned notifications off.',
  [SkipReason.Invalidated]: 'A provider had refused this installation’s token before, so it is no longer sent to.',
  [SkipReason.Deleted]: 'The installation was deleted between the fan-out and the attempt.',
  [SkipReason.NoToken]: 'The installation has no push token or subscription yet.',
  [SkipReason.NoCredentials]: 'The app has no credentials for this platform’s push service.',
  [SkipReason.PlatformExcluded]: 'The send left this platform out: its options.platforms, or a Live Activity start or widget push, which reach iOS only.',
  [SkipReason.SilentNotSupported]: 'A silent send: browsers must show every push, so web installations are left out.',
  [SkipReason.Canceled]: 'The notification was cancelled before this delivery was attempted.',
  [SkipReason.FrequencyCapped]: 'A marketing send: the installation had already had the app’s frequency cap of marketing messages in its window.',
  [SkipReason.DryRun]: 'A dry run: everything but the delivery (FCM or Huawei validated the message; APNs and Web Push were not called).',
  [SkipReason.NoLiveActivityToken]: 'A send starting a Live Activity: this iOS installation has no push-to-start token for its type.',
  [SkipReason.NoWidgetToken]: 'A widget push: this iOS installation has no WidgetKit push token (widget_push_token).',
  [SkipReason.Unsubscribed]: 'The send’s topic: the installation’s user is not subscribed to it (their choice, or the topic’s default).',
  [SkipReason.PushDisabled]: 'A marketing send: the installation’s user turned push off in their preferences (channels.push).',
  [SkipReason.QuietHours]: 'A marketing send held for the app’s quiet hours on the device’s clock, and its ttl ran out before they ended.',
  [SkipReason.RenderFailed]:
    'A template or personalized send: its Liquid could not be rendered for this installation (an error, or past the time or size limit).',
  [FailureReason.ApnsNotConfigured]: 'The APNs credentials could not be used when it was attempted.',
  [FailureReason.FcmNotConfigured]: 'The FCM credentials could not be used when it was attempted.',
  [FailureReason.VapidNotConfigured]: 'The Web Push (VAPID) keys could not be used when it was attempted.',
  [FailureReason.HmsNotConfigured]: 'The Huawei Push Kit credentials could not be used when it was attempted.',
  [FailureReason.MissingDeviceToken]: 'The iOS installation has no device token.',
  [FailureReason.MissingRegistrationToken]: 'The Android installation has no registration token.',
  [FailureReason.MissingSubscription]: 'The web installation has no push subscription.',
  [FailureReason.InvalidSubscription]: 'The web installation’s push subscription is malformed.',
  [FailureReason.EndpointNotAllowed]: 'The subscription’s endpoint is not a known browser push service (WEB_PUSH_ALLOWED_HOSTS).',
  [FailureReason.PrivateAddress]: 'The subscription’s endpoint resolves to a private address, which is never called.',
  [FailureReason.InvalidProviderKey]: 'The push service refused the app’s key or certificate.',
  [FailureReason.PayloadTooLarge]:
    'The message is larger than the push service accepts (skipped: a template or personalized send, too large once rendered for this installation).',
  [NotificationFailureReason.AudienceTimedOut]:
    'The filter’s audience took longer than AUDIENCE_STATEMENT_TIMEOUT_MS to find, so nothing was sent: simplify the filter, or send it again later.',
  BadDeviceToken: 'APNs: the device token is not valid for this app and environment (sandbox or production).',
  Unregistered: 'APNs: the app was uninstalled or the token is no longer valid.',
  UNREGISTERED: 'FCM: the app was uninstalled or the token expired.',
  Gone: 'Web Push: the browser unsubscribed.',
  '80100000': 'Huawei: the token is not valid for this app (listed among the illegal tokens of a partly accepted request).',
  '80300007': 'Huawei: the token is not valid for this app, or no longer valid.',
  '80100003': 'Huawei: the message has a field Huawei refuses.',
  '80300002': 'Huawei: the app may not send push messages (Push Kit not enabled, or a wrong app id).',
  '80300011': 'Huawei: the app may not send high-priority messages; send with options.priority "normal".',
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

/** Where a send goes (docs/api.md#inbox): `options.channels`, `["push"]` when absent. */
export const CHANNELS = ['push', 'inbox'] as const;
export type Channel = (typeof CHANNELS)[number];

export const PERMISSIONS = ['granted', 'denied', 'unknown'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const RECIPIENT_KINDS = ['user_ids', 'installation_ids', 'tags', 'filter', 'all', 'topic'] as const;
export type RecipientKind = (typeof RECIPIENT_KINDS)[number];

/** Where a notification stands (notifications/notification-status.ts decides). */
export const NOTIFICATION_STATUSES = ['scheduled', 'sending', 'completed', 'canceled'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];
export const NOTIFICATION_OUTCOMES = ['delivered', 'partly_failed', 'failed', 'nothing_sent'] as const;
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];
export const FINAL_NOTIFICATION_STATUSES = ['completed', 'canceled'] as const satisfies readonly NotificationStatus[];

/** The push services, by the id of the metrics' `provider` label and the logs. */
export const PROVIDER_IDS = ['apns', 'fcm', 'web_push', 'hms'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export const PROVIDER_OF: Record<Platform, ProviderId> = { ios: 'apns', android: 'fcm', web: 'web_push', huawei: 'hms' };

/** Whose credentials and metrics each push provider uses: UnifiedPush is Web Push to a distributor (docs/api.md#unifiedpush). */
export const CREDENTIALS_OF: Record<PushProviderName, ProviderId> = { apns: 'apns', fcm: 'fcm', web_push: 'web_push', unifiedpush: 'web_push', hms: 'hms' };

export const PUSH_PROVIDER_LABELS: Record<PushProviderName, string> = {
  apns: 'APNs',
  fcm: 'FCM',
  web_push: 'Web Push',
  unifiedpush: 'UnifiedPush',
  hms: 'Huawei Push Kit',
};

export const PROVIDER_LABELS: Record<ProviderId, string> = { apns: 'APNs', fcm: 'FCM', web_push: 'Web Push', hms: 'Huawei Push Kit' };

export const PROVIDER_CLI_NAMES: Record<ProviderId, string> = { apns: 'apns', fcm: 'fcm', web_push: 'web-push', hms: 'hms' };

export const WEBHOOK_MESSAGE_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookMessageStatus = (typeof WEBHOOK_MESSAGE_STATUSES)[number];

export const LIVE_ACTIVITY_STATUSES = ['active', 'ended'] as const;
export type LiveActivityStatus = (typeof LIVE_ACTIVITY_STATUSES)[number];

export const LIVE_ACTIVITY_UPDATE_STATUSES = ['pending', 'accepted', 'failed', 'skipped'] as const;
export type LiveActivityUpdateStatus = (typeof LIVE_ACTIVITY_UPDATE_STATUSES)[number];

export const LIVE_ACTIVITY_EVENTS = ['update', 'end'] as const;
export type LiveActivityEvent = (typeof LIVE_ACTIVITY_EVENTS)[number];

/** Why a Live Activity update was not sent (docs/api.md#live-activities). */
export const LiveActivitySkipReason = {
  /** APNs had already accepted a newer update: an older state is never sent after it. */
  Superseded: 'Superseded',
  ActivityEnded: 'ActivityEnded',
} as const;
export type LiveActivitySkipReason = (typeof LiveActivitySkipReason)[keyof typeof LiveActivitySkipReason];

/** A broadcast channel's `message-storage-policy` 0 or 1 (docs/api.md#live-activity-channels). */
export const CHANNEL_STORAGES = ['none', 'most_recent'] as const;
export type ChannelStorage = (typeof CHANNEL_STORAGES)[number];

/** An operator's role (docs/api.md#roles): a viewer reads; an editor also sends, cancels and manages topics; an owner also apps, credentials, tokens and operators. */
export const OPERATOR_ROLES = ['viewer', 'editor', 'owner'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** What the audit log records (docs/api.md#audit-log): `<subject>.<verb>`. */
export const AUDIT_ACTIONS = [
  'session.login',
  'session.logout',
  'session.revoke',
  'notification.send',
  'notification.cancel',
  'topic.put',
  'topic.delete',
  'operator.create',
  'operator.update',
  'operator.disable',
  'operator.invite',
  'operator.accept',
  'domain.allow',
  'domain.remove',
  'app.create',
  'app.delete',
  'app.settings',
  'app.identity_secret',
  'app_key.rotate',
  'credentials.set',
  'credentials.remove',
  'token.create',
  'token.revoke',
  'webhook.create',
  'webhook.delete',
  'installations.import',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who made a change: an operator in the dashboard, the CLI at the server, or an API token. */
/**
 * Why an OIDC sign-in was refused (docs/api.md#oidc): the callback sends the browser back to
 * `/admin?oidc_error=<key>`, and the login page says the words.
 */
export const OIDC_SIGN_IN_ERRORS = {
  refused: 'No enabled operator has this e-mail and its domain is not admitted: ask an owner to invite you or to admit your domain.',
  unverified: 'Your identity provider has not verified this e-mail address.',
  no_email: 'Your identity provider gave no e-mail address (the email scope).',
  attempt: 'This sign-in was not started here or took longer than 10 minutes: try again.',
  provider: 'Your identity provider refused the sign-in or could not be reached: try again, or log in with your password.',
  throttled: 'Too many failed logins from here or for this account. Try again later.',
} as const;
export type OidcSignInError = keyof typeof OIDC_SIGN_IN_ERRORS;

export const AUDIT_ACTOR_KINDS = ['operator', 'cli', 'token'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];
