// Written by `npm run vocabulary:sync` (src/common/vocabulary-file.ts) from src/common/vocabulary.ts; do not edit.

export const PLATFORMS = ['ios', 'android', 'web'] as const;
export const DELIVERY_STATUSES = ['scheduled', 'pending', 'sending', 'accepted', 'failed', 'skipped'] as const;
export const NOTIFICATION_STATUSES = ['scheduled', 'sending', 'completed', 'canceled'] as const;
export const FINAL_NOTIFICATION_STATUSES = ['completed', 'canceled'] as const;
export const NOTIFICATION_OUTCOMES = ['delivered', 'partly_failed', 'failed', 'nothing_sent'] as const;
export const RECIPIENT_KINDS = ['user_ids', 'installation_ids', 'tags', 'filter', 'all'] as const;
export const SKIP_REASONS = ['PermissionDenied', 'Invalidated', 'Deleted', 'NoToken', 'NoCredentials', 'PlatformExcluded', 'SilentNotSupported', 'Canceled'] as const;
export const COMMON_REASONS = ['PermissionDenied', 'Invalidated', 'Deleted', 'NoToken', 'NoCredentials', 'PlatformExcluded', 'SilentNotSupported', 'Canceled', 'BadDeviceToken', 'Unregistered', 'UNREGISTERED', 'Gone'] as const;
export const PROVIDER_IDS = ['apns', 'fcm', 'web_push'] as const;
export const PROVIDER_OF = { ios: 'apns', android: 'fcm', web: 'web_push' } as const;
export const PROVIDER_LABELS = { apns: 'APNs', fcm: 'FCM', web_push: 'Web Push' } as const;
export const PERMISSIONS = ['granted', 'denied', 'unknown'] as const;
export const REASON_EXPLANATIONS = { PermissionDenied: 'The installation reported that the user turned notifications off.', Invalidated: 'A provider had refused this installation’s token before, so it is no longer sent to.', Deleted: 'The installation was deleted between the fan-out and the attempt.', NoToken: 'The installation has no push token or subscription yet.', NoCredentials: 'The app has no credentials for this platform’s push service.', PlatformExcluded: 'The send’s options.platforms left this platform out.', SilentNotSupported: 'A silent send: browsers must show every push, so web installations are left out.', Canceled: 'The notification was cancelled before this delivery was attempted.', ApnsNotConfigured: 'The APNs credentials could not be used when it was attempted.', FcmNotConfigured: 'The FCM credentials could not be used when it was attempted.', VapidNotConfigured: 'The Web Push (VAPID) keys could not be used when it was attempted.', MissingDeviceToken: 'The iOS installation has no device token.', MissingRegistrationToken: 'The Android installation has no registration token.', MissingSubscription: 'The web installation has no push subscription.', InvalidSubscription: 'The web installation’s push subscription is malformed.', EndpointNotAllowed: 'The subscription’s endpoint is not a known browser push service (WEB_PUSH_ALLOWED_HOSTS).', PrivateAddress: 'The subscription’s endpoint resolves to a private address, which is never called.', InvalidProviderKey: 'The push service refused the app’s key or certificate.', PayloadTooLarge: 'The message is larger than the push service accepts.', BadDeviceToken: 'APNs: the device token is not valid for this app and environment (sandbox or production).', Unregistered: 'APNs: the app was uninstalled or the token is no longer valid.', UNREGISTERED: 'FCM: the app was uninstalled or the token expired.', Gone: 'Web Push: the browser unsubscribed.' } as const;
export const FILTER_OPS_BY_FIELD = { properties: ['eq', 'ne', 'in', 'not_in', 'lt', 'lte', 'gt', 'gte', 'exists', 'not_exists'], tags: ['contains', 'exists', 'not_exists'], platform: ['eq', 'ne', 'in', 'not_in'], permission: ['eq', 'ne', 'in', 'not_in'], language: ['eq', 'ne', 'in', 'not_in', 'exists', 'not_exists'], app_version: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'exists', 'not_exists'], user_id: ['eq', 'ne', 'in', 'not_in', 'exists', 'not_exists'], last_seen_at: ['lt', 'lte', 'gt', 'gte', 'within_last', 'not_within_last'], registered_at: ['lt', 'lte', 'gt', 'gte', 'within_last', 'not_within_last'] } as const;

export type Platform = (typeof PLATFORMS)[number];
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];
export type NotificationOutcome = (typeof NOTIFICATION_OUTCOMES)[number];
export type RecipientKind = (typeof RECIPIENT_KINDS)[number];
export type ProviderId = (typeof PROVIDER_IDS)[number];
export type FilterField = keyof typeof FILTER_OPS_BY_FIELD;
export type FilterOp = (typeof FILTER_OPS_BY_FIELD)[FilterField][number];
