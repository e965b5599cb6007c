/**
 * Webhook event types (docs/api.md#webhooks), and the outbox insert that the statements changing the
 * state carry, so an event is written in the same transaction as the change it reports. Shared
 * by `delivery` and `notifications` (which write the events) and `webhooks` (which sends them).
 */
export const WEBHOOK_EVENT_TYPES = ['notification.completed', 'notification.canceled', 'installation.invalidated'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * An INSERT of one `webhook_messages` row per endpoint of the subject's app that asked for `type`,
 * for use as a data-modifying CTE.
 */
export function webhookOutboxInsert(type: WebhookEventType, subjects: string): string {
  return `INSERT INTO webhook_messages (webhook_id, type, subject_id)
    SELECT w.id, '${type}', s.subject_id FROM (${subjects}) AS s(app_id, subject_id)
    JOIN webhooks w ON w.app_id = s.app_id AND '${type}' = ANY (w.events)`;
}

/**
 * The webhook outbox's two partial-index predicates (webhook-message.entity.ts): messages still
 * owed, and those finished (delivered or given up). Statements use these very texts, never a
 * parameter: PostgreSQL uses a partial index only when it can prove its predicate from the query.
 */
export const WEBHOOK_OWED = `status = 'pending'`;
export const WEBHOOK_FINISHED = `status <> 'pending'`;
