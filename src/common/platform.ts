/**
 * The delivery channels, written once: installations store one, a send may target some, delivery
 * picks a provider by it.
 */
export const PLATFORMS = ['ios', 'android', 'web'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** A browser's push subscription as installations store it and Web Push delivery reads it. */
export interface WebPushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}
