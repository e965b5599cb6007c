-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/notifications/trace/delivery-trace.repository.ts; do not edit.

-- DeliveryTraceRepository.notification
SELECT processing_started_at::text AS started_at FROM notifications WHERE id = $1 AND app_id = $2;

-- DeliveryTraceRepository.page
SELECT p.installation_id AS position, i.installation_id, p.user_id, p.platform, p.status, p.reason, p.attempts, p.provider_message_id,
       p.scheduled_for, p.next_attempt_at, p.variant, p.updated_at, ev.received_at, ev.displayed_at, ev.opened_at, ev.opened_action, p.matches, p.scanned::int AS scanned,
       i.device ->> 'locale' AS locale
FROM (
  SELECT s.*, (($4::text IS NULL OR s.status = $4::text) AND ($7::text IS NULL OR s.reason = $7::text)) AS matches
  FROM (
    SELECT d.*, row_number() OVER (ORDER BY d.installation_id) AS scanned
    FROM (
      SELECT d.installation_id, d.user_id, d.platform, d.status, d.reason, d.attempts, d.provider_message_id, d.scheduled_for,
        NULLIF(d.next_attempt_at, 'infinity') AS next_attempt_at, d.updated_at,
        CASE WHEN d.variant IS NOT NULL THEN (SELECT n.variants -> d.variant::int ->> 'key' FROM notifications n WHERE n.id = $1) END AS variant
      FROM deliveries d
      WHERE d.notification_id = $1 AND d.notification_started_at = $2::timestamptz AND d.installation_id > $3::uuid
      ORDER BY d.installation_id
      LIMIT $5
    ) d
  ) s
  WHERE (($4::text IS NULL OR s.status = $4::text) AND ($7::text IS NULL OR s.reason = $7::text)) OR s.scanned = $5
  ORDER BY s.installation_id
  LIMIT $6
) p
JOIN installations i ON i.id = p.installation_id
LEFT JOIN LATERAL (
  SELECT max(e.occurred_at) FILTER (WHERE e.type = 'received') AS received_at,
         max(e.occurred_at) FILTER (WHERE e.type = 'displayed') AS displayed_at,
         max(e.occurred_at) FILTER (WHERE e.type = 'opened') AS opened_at,
         max(e.action) FILTER (WHERE e.type = 'opened') AS opened_action
  FROM notification_events e
  WHERE e.notification_id = $1 AND e.notification_started_at = $2::timestamptz AND e.installation_id = p.installation_id
) ev ON true
ORDER BY p.installation_id;
