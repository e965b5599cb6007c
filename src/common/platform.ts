export const PLATFORMS = ['ios', 'android', 'web', 'huawei'] as const;
export type Platform = (typeof PLATFORMS)[number];

export interface WebPushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** The push service an installation is reached through (docs/api.md#push-provider): the Installation's `push_provider`. */
export const PUSH_PROVIDER_NAMES = ['apns', 'fcm', 'web_push', 'unifiedpush', 'hms'] as const;
export type PushProviderName = (typeof PUSH_PROVIDER_NAMES)[number];

/** Each platform's provider when the installation names no other: an Android installation is FCM unless it holds a UnifiedPush subscription. */
export const DEFAULT_PUSH_PROVIDER: Record<Platform, PushProviderName> = { ios: 'apns', android: 'fcm', web: 'web_push', huawei: 'hms' };

/** The providers an installation of each platform may register with (`push_provider`). */
export const PUSH_PROVIDERS_OF: Record<Platform, readonly PushProviderName[]> = {
  ios: ['apns'],
  android: ['fcm', 'unifiedpush'],
  web: ['web_push'],
  huawei: ['hms'],
};

/**
 * The one rule for an installation's provider (docs/api.md#push-provider): an Android installation that
 * holds a subscription registered with UnifiedPush; every other by its platform.
 */
export function pushProviderOf(platform: Platform, holdsSubscription: boolean): PushProviderName {
  return platform === 'android' && holdsSubscription ? 'unifiedpush' : DEFAULT_PUSH_PROVIDER[platform];
}

/** The providers whose installations hold a `web_push_subscription` rather than a `push_token`. */
export const SUBSCRIPTION_PROVIDERS: readonly PushProviderName[] = ['web_push', 'unifiedpush'];

/** pushProviderOf as SQL over the installations row `alias`, for statements that choose by provider (the fan-out's "configured"). */
export const pushProviderSql = (alias: string) =>
  `(CASE WHEN ${alias}.platform = 'android' AND ${alias}.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE ` +
  `CASE ${alias}.platform ${PLATFORMS.map((p) => `WHEN '${p}' THEN '${DEFAULT_PUSH_PROVIDER[p]}'`).join(' ')} END END)`;
