export const PLATFORMS = ['ios', 'android', 'web', 'huawei'] as const;
export type Platform = (typeof PLATFORMS)[number];

export interface WebPushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}
