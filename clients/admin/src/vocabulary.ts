// Written by `npm run vocabulary:sync` (src/common/vocabulary-file.ts) from src/common/vocabulary.ts; do not edit.

export const PLATFORMS = ['ios', 'android', 'web'] as const;
export const DELIVERY_STATUSES = ['scheduled', 'pending', 'sending', 'accepted', 'failed', 'skipped'] as const;
export const NOTIFICATION_STATUSES = ['scheduled', 'sending', 'completed', 'canceled'] as const;
export const FINAL_NOTIFICATION_STATUSES = ['completed', 'canceled'] as const;
export const RECIPIENT_KINDS = ['user_ids', 'installation_ids', 'tags', 'filter', 'all'] as const;
export const SKIP_REASONS = ['PermissionDenied', 'Invalidated', 'Deleted', 'NoToken', 'NoCredentials', 'PlatformExcluded', 'SilentNotSupported', 'Canceled', 'NoLiveActivityToken'] as const;
export const COMMON_REASONS = ['PermissionDenied', 'Invalidated', 'Deleted', 'NoToken', 'NoCredentials', 'PlatformExcluded', 'SilentNotSupported', 'Canceled', 'NoLiveActivityToken', 'BadDeviceToken', 'Unregistered', 'UNREGISTERED', 'Gone'] as const;
export const PROVIDER_IDS = ['apns', 'fcm', 'web_push'] as const;
export const PROVIDER_OF = { ios: 'apns', android: 'fcm', web: 'web_push' } as const;
export const PROVIDER_LABELS = { apns: 'APNs', fcm: 'FCM', web_push: 'Web Push' } as const;
export const PERMISSIONS = ['granted', 'denied', 'unknown'] as const;
export const FILTER_OPS_BY_FIELD = { properties: ['eq', 'ne', 'in', 'not_in', 'lt', 'lte', 'gt', 'gte', 'exists', 'not_exists'], tags: ['contains', 'exists', 'not_exists'], platform: ['eq', 'ne', 'in', 'not_in'], permission: ['eq', 'ne', 'in', 'not_in'], language: ['eq', 'ne', 'in', 'not_in', 'exists', 'not_exists'], app_version: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'exists', 'not_exists'], user_id: ['eq', 'ne', 'in', 'not_in', 'exists', 'not_exists'], last_seen_at: ['lt', 'lte', 'gt', 'gte', 'within_last', 'not_within_last'], registered_at: ['lt', 'lte', 'gt', 'gte', 'within_last', 'not_within_last'] } as const;

export type Platform = (typeof PLATFORMS)[number];
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];
export type RecipientKind = (typeof RECIPIENT_KINDS)[number];
export type ProviderId = (typeof PROVIDER_IDS)[number];
export type FilterField = keyof typeof FILTER_OPS_BY_FIELD;
export type FilterOp = (typeof FILTER_OPS_BY_FIELD)[FilterField][number];
