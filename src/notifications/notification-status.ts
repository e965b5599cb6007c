import type { NotificationResource } from './notification.resource';

/** Where a notification stands, as the operator dashboard shows it (docs/operations.md "Operator dashboard"). */
export type NotificationStatus = 'scheduled' | 'sending' | 'completed' | 'canceled';

/**
 * Canceled and completed are final (a cancelled notification also completes: canceled wins).
 * Scheduled: waiting for its send_at, or for its devices' local time (options.local_time,
 * docs/api.md 11) with nothing attempted yet. Anything else is under way: sending.
 */
export function notificationStatus(n: NotificationResource, now = Date.now()): NotificationStatus {
  if (n.canceled_at) return 'canceled';
  if (n.completed_at) return 'completed';
  if (n.send_at && Date.parse(n.send_at) > now) return 'scheduled';
  const attempted = n.statistics.accepted + n.statistics.failed;
  if (n.options?.local_time && attempted === 0) return 'scheduled';
  return 'sending';
}

/** A notification can be cancelled until it has completed (docs/api.md 11). */
export const cancelable = (n: NotificationResource) => !n.completed_at && !n.canceled_at;
