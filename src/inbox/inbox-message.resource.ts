import { iso } from '../common/time';

/** The columns of an InboxMessage (docs/api.md#inbox), as statements that answer one select them. */
export const INBOX_MESSAGE_COLUMNS = `id, notification_id, user_id, title, body, image_url, action_url, data, topic, created_at, read_at, archived_at, expires_at`;

export interface InboxMessageRow {
  id: string;
  notification_id: string;
  user_id: string;
  title: string | null;
  body: string | null;
  image_url: string | null;
  action_url: string | null;
  data: Record<string, unknown> | null;
  topic: string | null;
  created_at: Date;
  read_at: Date | null;
  archived_at: Date | null;
  expires_at: Date;
}

export function toInboxMessageResource(row: InboxMessageRow) {
  return {
    id: row.id,
    notification_id: row.notification_id,
    user_id: row.user_id,
    title: row.title,
    body: row.body,
    image_url: row.image_url,
    action_url: row.action_url,
    data: row.data,
    topic: row.topic,
    created_at: iso(row.created_at),
    read_at: iso(row.read_at),
    archived_at: iso(row.archived_at),
    expires_at: iso(row.expires_at),
  };
}

export type InboxMessageResource = ReturnType<typeof toInboxMessageResource>;
