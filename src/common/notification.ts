import type { NotificationOptions } from './notification-options';
import type { RecipientKind } from './vocabulary';
import type { StoredVariant } from './variants';

/**
 * A `notifications` row as the API stores and reads it (every column but the lists of ids): the
 * stored shape of a notification. What a provider needs is the other (delivery's PushContent).
 */
export interface NotificationRow {
  id: string;
  app_id: string;
  title: string | null;
  body: string | null;
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
  stat_inbox_stored: number;
  stat_inbox_read: number;
  created_at: Date;
  processing_started_at: Date | null;
  completed_at: Date | null;
  send_at: Date | null;
  canceled_at: Date | null;
  /** Why the send failed before any delivery (NotificationFailureReason), or null. */
  failure_reason: string | null;
  localizations: Record<string, Record<string, string>> | null;
  fanned_out_at: Date | null;
  /** A throttled send's audience, counted when its fan-out began; null for other sends. */
  fanout_audience: number | null;
  recipient_kind: RecipientKind;
  tags: string[] | null;
  /** The template it was sent from (docs/api.md#sending-with-a-template), or null. */
  template: { key: string; version: number } | null;
  /** The send's variables, rendered as `vars` (docs/api.md#liquid), or null. */
  variables: Record<string, unknown> | null;
  /** The send's variants (docs/api.md#variants), or null. */
  variants: StoredVariant[] | null;
  /** An A/B test's stored phase (`sample`, `winner`), or null without a test (docs/api.md#a-b-test-with-a-winner). */
  ab_phase: string | null;
  ab_due_at: Date | null;
  ab_winner: string | null;
  ab_decided_at: Date | null;
}

/** The stored row's columns the worker sends from (DeliveriesRepository.content, a small send's job). */
export type NotificationContentRow = Pick<
  NotificationRow,
  | 'id'
  | 'app_id'
  | 'processing_started_at'
  | 'title'
  | 'body'
  | 'image_url'
  | 'action_url'
  | 'data'
  | 'options'
  | 'localizations'
  | 'template'
  | 'variables'
  | 'variants'
>;

/** The content columns of a stored row (what the worker sends from). */
export const contentOf = (row: NotificationContentRow): NotificationContentRow => ({
  id: row.id,
  app_id: row.app_id,
  processing_started_at: row.processing_started_at,
  title: row.title,
  body: row.body,
  image_url: row.image_url,
  action_url: row.action_url,
  data: row.data,
  options: row.options,
  localizations: row.localizations,
  template: row.template,
  variables: row.variables,
  variants: row.variants ?? null,
});

/** The columns of NotificationRow, as statements that answer it select them. */
export const NOTIFICATION_ROW_COLUMNS = `id, app_id, title, body, image_url, action_url, data, options, target_users,
  stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
  stat_inbox_stored, stat_inbox_read, created_at, processing_started_at, completed_at, send_at, canceled_at, failure_reason, localizations, fanned_out_at, fanout_audience, recipient_kind, tags, template, variables,
  variants, ab_phase, ab_due_at, ab_winner, ab_decided_at`;

/** The columns a send writes: the stored row's, with the recipients' lists and filter (named as the columns). */
export type NewNotification = Pick<
  NotificationRow,
  | 'id'
  | 'app_id'
  | 'title'
  | 'body'
  | 'image_url'
  | 'action_url'
  | 'data'
  | 'options'
  | 'recipient_kind'
  | 'tags'
  | 'send_at'
  | 'localizations'
  | 'template'
  | 'variables'
  | 'variants'
  | 'ab_phase'
> & {
  user_ids: string[];
  installation_ids: string[] | null;
  recipient_filter: object | null;
};

/** The values of a send's INSERT, by column name; target_users is known now only for user ids (docs/api.md#recipients). */
export const insertValues = (n: NewNotification) => ({
  ...n,
  target_users: n.recipient_kind === 'user_ids' ? n.user_ids.length : 0,
});
