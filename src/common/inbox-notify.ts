/**
 * The PostgreSQL NOTIFY channel of inbox changes (docs/api.md#inbox-stream): a fan-out chunk's
 * stored messages `{app_id, notification_id}`, a user's changed states `{app_id, user_id}`. The
 * writers are the delivery and inbox repositories; api processes listen.
 */
export const INBOX_NOTIFY_CHANNEL = 'inbox_messages';

export type InboxChange = { app_id: string; notification_id: string } | { app_id: string; user_id: string };
