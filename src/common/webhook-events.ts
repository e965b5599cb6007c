/** Webhook event types (docs/api.md#webhooks) and the outbox insert, written in the transaction of the change it reports. */
export const WEBHOOK_EVENT_TYPES = [
  'notification.completed',
  'notification.canceled',
  'installation.invalidated',
  'inbox.read',
  'notification.ab_test_decided',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** An INSERT of one `webhook_messages` row per endpoint of the subject's app that asked for `type`, for use as a data-modifying CTE. */
export function webhookOutboxInsert(type: WebhookEventType, subjects: string): string {
  return `INSERT INTO webhook_messages (webhook_id, type, subject_id)
    SELECT w.id, '${type}', s.subject_id FROM (${subjects}) AS s(app_id, subject_id)
    JOIN webhooks w ON w.app_id = s.app_id AND '${type}' = ANY (w.events)`;
}

/** The outbox's partial-index predicates, owed and finished, as literal text: a parameter would not prove them to the planner. */
export const WEBHOOK_OWED = `status = 'pending'`;
export const WEBHOOK_FINISHED = `status <> 'pending'`;
