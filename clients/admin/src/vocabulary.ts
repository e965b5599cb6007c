// Written by `npm run vocabulary:sync` (src/common/vocabulary-file.ts) from src/common/vocabulary.ts; do not edit.

export const PLATFORMS = ['ios', 'android', 'web', 'huawei'] as const;
export const DELIVERY_STATUSES = ['scheduled', 'pending', 'sending', 'accepted', 'failed', 'skipped'] as const;
export const NOTIFICATION_STATUSES = ['scheduled', 'sending', 'completed', 'canceled'] as const;
export const FINAL_NOTIFICATION_STATUSES = ['completed', 'canceled'] as const;
export const NOTIFICATION_OUTCOMES = ['delivered', 'partly_failed', 'failed', 'nothing_sent'] as const;
export const RECIPIENT_KINDS = ['user_ids', 'installation_ids', 'tags', 'filter', 'all', 'topic'] as const;
export const SKIP_REASONS = [
  'PermissionDenied',
  'Invalidated',
  'Deleted',
  'NoToken',
  'NoCredentials',
  'PlatformExcluded',
  'SilentNotSupported',
  'Canceled',
  'FrequencyCapped',
  'QuietHours',
  'DryRun',
  'NoLiveActivityToken',
  'NoWidgetToken',
  'Unsubscribed',
  'PushDisabled',
  'RenderFailed',
  'PayloadTooLarge',
] as const;
export const COMMON_REASONS = [
  'PermissionDenied',
  'Invalidated',
  'Deleted',
  'NoToken',
  'NoCredentials',
  'PlatformExcluded',
  'SilentNotSupported',
  'Canceled',
  'FrequencyCapped',
  'QuietHours',
  'DryRun',
  'NoLiveActivityToken',
  'NoWidgetToken',
  'Unsubscribed',
  'PushDisabled',
  'RenderFailed',
  'PayloadTooLarge',
  'BadDeviceToken',
  'Unregistered',
  'UNREGISTERED',
  'Gone',
] as const;
export const PROVIDER_IDS = ['apns', 'fcm', 'web_push', 'hms'] as const;
export const PROVIDER_OF = { ios: 'apns', android: 'fcm', web: 'web_push', huawei: 'hms' } as const;
export const PROVIDER_LABELS = { apns: 'APNs', fcm: 'FCM', web_push: 'Web Push', hms: 'Huawei Push Kit' } as const;
export const PUSH_PROVIDER_NAMES = ['apns', 'fcm', 'web_push', 'unifiedpush', 'hms'] as const;
export const PUSH_PROVIDER_LABELS = { apns: 'APNs', fcm: 'FCM', web_push: 'Web Push', unifiedpush: 'UnifiedPush', hms: 'Huawei Push Kit' } as const;
export const PERMISSIONS = ['granted', 'denied', 'unknown'] as const;
export const REASON_EXPLANATIONS = {
  '80100000': 'Huawei: the token is not valid for this app (listed among the illegal tokens of a partly accepted request).',
  '80100003': 'Huawei: the message has a field Huawei refuses.',
  '80300002': 'Huawei: the app may not send push messages (Push Kit not enabled, or a wrong app id).',
  '80300007': 'Huawei: the token is not valid for this app, or no longer valid.',
  '80300011': 'Huawei: the app may not send high-priority messages; send with options.priority "normal".',
  PermissionDenied: 'The installation reported that the user turned notifications off.',
  Invalidated: 'A provider had refused this installation’s token before, so it is no longer sent to.',
  Deleted: 'The installation was deleted between the fan-out and the attempt.',
  NoToken: 'The installation has no push token or subscription yet.',
  NoCredentials: 'The app has no credentials for this platform’s push service.',
  PlatformExcluded: 'The send left this platform out: its options.platforms, or a Live Activity start or widget push, which reach iOS only.',
  SilentNotSupported: 'A silent send: browsers must show every push, so web installations are left out.',
  Canceled: 'The notification was cancelled before this delivery was attempted.',
  FrequencyCapped: 'A marketing send: the installation had already had the app’s frequency cap of marketing messages in its window.',
  DryRun: 'A dry run: everything but the delivery (FCM or Huawei validated the message; APNs and Web Push were not called).',
  NoLiveActivityToken: 'A send starting a Live Activity: this iOS installation has no push-to-start token for its type.',
  NoWidgetToken: 'A widget push: this iOS installation has no WidgetKit push token (widget_push_token).',
  Unsubscribed: 'The send’s topic: the installation’s user is not subscribed to it (their choice, or the topic’s default).',
  PushDisabled: 'A marketing send: the installation’s user turned push off in their preferences (channels.push).',
  QuietHours: 'A marketing send held for the app’s quiet hours on the device’s clock, and its ttl ran out before they ended.',
  RenderFailed: 'A template or personalized send: its Liquid could not be rendered for this installation (an error, or past the time or size limit).',
  ApnsNotConfigured: 'The APNs credentials could not be used when it was attempted.',
  FcmNotConfigured: 'The FCM credentials could not be used when it was attempted.',
  VapidNotConfigured: 'The Web Push (VAPID) keys could not be used when it was attempted.',
  HmsNotConfigured: 'The Huawei Push Kit credentials could not be used when it was attempted.',
  MissingDeviceToken: 'The iOS installation has no device token.',
  MissingRegistrationToken: 'The Android installation has no registration token.',
  MissingSubscription: 'The web installation has no push subscription.',
  InvalidSubscription: 'The web installation’s push subscription is malformed.',
  EndpointNotAllowed: 'The subscription’s endpoint is not a known browser push service (WEB_PUSH_ALLOWED_HOSTS).',
  PrivateAddress: 'The subscription’s endpoint resolves to a private address, which is never called.',
  InvalidProviderKey: 'The push service refused the app’s key or certificate.',
  PayloadTooLarge:
    'The message is larger than the push service accepts (skipped: a template or personalized send, too large once rendered for this installation).',
  AudienceTimedOut:
    'The filter’s audience took longer than AUDIENCE_STATEMENT_TIMEOUT_MS to find, so nothing was sent: simplify the filter, or send it again later.',
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
} as const;
export const FILTER_OPS_BY_FIELD = {
  properties: ['eq', 'ne', 'in', 'not_in', 'lt', 'lte', 'gt', 'gte', 'exists', 'not_exists'],
  tags: ['contains', 'exists', 'not_exists'],
  platform: ['eq', 'ne', 'in', 'not_in'],
  permission: ['eq', 'ne', 'in', 'not_in'],
  language: ['eq', 'ne', 'in', 'not_in', 'exists', 'not_exists'],
  app_version: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'exists', 'not_exists'],
  user_id: ['eq', 'ne', 'in', 'not_in', 'exists', 'not_exists'],
  last_seen_at: ['lt', 'lte', 'gt', 'gte', 'within_last', 'not_within_last'],
  registered_at: ['lt', 'lte', 'gt', 'gte', 'within_last', 'not_within_last'],
} as const;
export const OPERATOR_ROLES = ['viewer', 'editor', 'owner'] as const;
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

export type Platform = (typeof PLATFORMS)[number];
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];
export type RecipientKind = (typeof RECIPIENT_KINDS)[number];
export type ProviderId = (typeof PROVIDER_IDS)[number];
export type PushProviderName = (typeof PUSH_PROVIDER_NAMES)[number];
export type FilterField = keyof typeof FILTER_OPS_BY_FIELD;
export type FilterOp = (typeof FILTER_OPS_BY_FIELD)[FilterField][number];
