import { iso } from '../common/time';
import { PushContent } from '../common/push-payloads';
import { NotificationOptions } from './notification.entity';

/** A `notifications` row as PostgreSQL returns it. */
export interface NotificationRow {
  id: string;
  app_id: string;
  title: string;
  body: string;
  image_url: string | null;
  action_url: string | null;
  data: Record<string, unknown> | null;
  options: NotificationOptions | null;
  target_users: number;
  stat_users: number;
  stat_installations: number;
  stat_accepted: number;
  stat_received: number;
  stat_displayed: number;
  stat_opened: number;
  stat_failed: number;
  stat_skipped: number;
  created_at: Date;
  processing_started_at: Date | null;
  completed_at: Date | null;
}

/** Every column but the (possibly long) target list. */
export const NOTIFICATION_COLUMNS = `id, app_id, title, body, image_url, action_url, data, options, target_users,
  stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
  created_at, processing_started_at, completed_at`;

export function toNotificationResource(row: NotificationRow) {
  return {
    id: row.id,
    notification: { title: row.title, body: row.body, image_url: row.image_url, action_url: row.action_url },
    data: row.data,
    options: row.options,
    target_users: row.target_users,
    statistics: {
      users: row.stat_users,
      installations: row.stat_installations,
      accepted: row.stat_accepted,
      received: row.stat_received,
      displayed: row.stat_displayed,
      opened: row.stat_opened,
      failed: row.stat_failed,
      skipped: row.stat_skipped,
    },
    created_at: iso(row.created_at),
    processing_started_at: iso(row.processing_started_at),
    completed_at: iso(row.completed_at),
  };
}

export type NotificationResource = ReturnType<typeof toNotificationResource>;

export function toPushContent(row: Pick<NotificationRow, 'id' | 'title' | 'body' | 'image_url' | 'action_url' | 'data' | 'options'>): PushContent {
  return {
    id: row.id,
    title: row.title,
    body: row.body,
    image_url: row.image_url,
    action_url: row.action_url,
    data: row.data,
    options: row.options,
  };
}
