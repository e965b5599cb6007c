import type { DeliveryStatus } from './vocabulary';

/**
 * A send's statistics per variant (docs/api.md#variants), read from its delivery rows and their
 * events when the notification is read: only for a notification with variants (`variants` not null),
 * so other sends pay nothing. Rows held for an A/B test's winner have no variant yet and count in none.
 */

const status = (word: DeliveryStatus) => `'${word}'`;

/** The figures of each variant of the notification aliased `n`, as JSON `[{variant, users, installations, ...}]`; null without variants. */
export const variantStatisticsSql = (n: string) => `CASE WHEN ${n}.variants IS NOT NULL THEN (
    SELECT COALESCE(jsonb_agg(to_jsonb(s) ORDER BY s.variant), '[]'::jsonb) FROM (
      SELECT d.variant, count(DISTINCT d.user_id)::int AS users, count(*)::int AS installations,
        count(*) FILTER (WHERE d.status = ${status('accepted')})::int AS accepted,
        count(*) FILTER (WHERE d.status = ${status('failed')})::int AS failed,
        count(*) FILTER (WHERE d.status = ${status('skipped')})::int AS skipped,
        COALESCE(sum(e.received), 0)::int AS received, COALESCE(sum(e.displayed), 0)::int AS displayed, COALESCE(sum(e.opened), 0)::int AS opened
      FROM deliveries d
      LEFT JOIN (
        SELECT installation_id, count(*) FILTER (WHERE type = 'received') AS received, count(*) FILTER (WHERE type = 'displayed') AS displayed,
          count(*) FILTER (WHERE type = 'opened') AS opened
        FROM notification_events WHERE notification_id = ${n}.id AND notification_started_at = ${n}.processing_started_at GROUP BY installation_id
      ) e ON e.installation_id = d.installation_id
      WHERE d.notification_id = ${n}.id AND d.notification_started_at = ${n}.processing_started_at AND d.variant IS NOT NULL
      GROUP BY d.variant) s
  ) END AS variant_statistics`;

/** One variant's figures as variantStatisticsSql answers them. */
export interface VariantFigures {
  variant: number;
  users: number;
  installations: number;
  accepted: number;
  failed: number;
  skipped: number;
  received: number;
  displayed: number;
  opened: number;
}
