import { iso } from '../common/time';
import type { NotificationRow } from './notifications.repository';

/** What the resource is made of: a notifications row; whom it targeted is not part of it. */
export type NotificationResourceRow = Omit<NotificationRow, 'recipient_kind' | 'tags'>;

export function toNotificationResource(row: NotificationResourceRow) {
  return {
    id: row.id,
    notification: {
      title: row.title,
      body: row.body,
      image_url: row.image_url,
      action_url: row.action_url,
      localizations: row.localizations,
    },
    data: row.data,
    options: row.options,
    dry_run: row.options?.dry_run === true,
    target_users: row.target_users,
    statistics: {
      users: row.stat_users,
      installations: installationsOf(row),
      accepted: row.stat_accepted,
      received: row.stat_received,
      displayed: row.stat_displayed,
      opened: row.stat_opened,
      failed: row.stat_failed,
      skipped: row.stat_skipped,
      inbox_stored: row.stat_inbox_stored,
      inbox_read: row.stat_inbox_read,
    },
    created_at: iso(row.created_at),
    processing_started_at: iso(row.processing_started_at),
    completed_at: iso(row.completed_at),
    send_at: iso(row.send_at),
    canceled_at: iso(row.canceled_at),
    failure_reason: row.failure_reason,
    template: row.template ?? null,
  };
}

export type NotificationResource = ReturnType<typeof toNotificationResource>;

/** A throttled send's whole audience while its fan-out writes it as turns come near (docs/api.md#pacing), then those it considered. */
function installationsOf(row: NotificationResourceRow): number {
  return row.fanned_out_at === null && row.fanout_audience !== null ? Math.max(row.stat_installations, row.fanout_audience) : row.stat_installations;
}
