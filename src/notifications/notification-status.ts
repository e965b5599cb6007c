import type { NotificationOutcome, NotificationStatus } from '../common/vocabulary';
import { NotificationResource, toNotificationResource } from './notification.resource';
import type { NotificationRow } from './notifications.repository';

/**
 * Where a notification stands, as the operator dashboard shows it (docs/operations.md "Operator
 * dashboard").
 */
export function notificationStatus(n: NotificationResource, now = Date.now()): NotificationStatus {
  if (n.canceled_at) return 'canceled';
  if (n.completed_at) return 'completed';
  if (n.send_at && Date.parse(n.send_at) > now) return 'scheduled';
  const attempted = n.statistics.accepted + n.statistics.failed;
  if (n.options?.local_time && attempted === 0) return 'scheduled';
  return 'sending';
}

/**
 * How a completed notification went (null until it completes), so that a send whose every attempt
 * failed does not wear the same badge as a full success: attempts are what the providers answered
 * (accepted or failed); skips are the service's own decisions and make no failure.
 */
export function notificationOutcome(n: NotificationResource): NotificationOutcome | null {
  if (!n.completed_at) return null;
  if (n.failure_reason) return 'failed';
  const { accepted, failed } = n.statistics;
  if (failed === 0) return accepted > 0 ? 'delivered' : 'nothing_sent';
  return accepted > 0 ? 'partly_failed' : 'failed';
}

/** A notification can be cancelled until it has completed (docs/api.md#scheduling). */
export const cancelable = (n: NotificationResource) => !n.completed_at && !n.canceled_at;

/** Whom a send targeted, in the words of its recipients key (docs/api.md#recipients). */
export function targetOf(row: NotificationRow) {
  return { kind: row.recipient_kind, users: row.recipient_kind === 'user_ids' ? row.target_users : null, tags: row.tags };
}

/** The operator dashboard's view of a notification: the API resource, where it stands, how it went and whom it targeted. */
export function operatorView(row: NotificationRow) {
  const resource = toNotificationResource(row);
  return { ...resource, status: notificationStatus(resource), outcome: notificationOutcome(resource), cancelable: cancelable(resource), target: targetOf(row) };
}

export type OperatorNotification = ReturnType<typeof operatorView>;
