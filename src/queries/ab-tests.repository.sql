-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/ab-tests/ab-tests.repository.ts; do not edit.

-- AbTestsRepository.setDue
UPDATE notifications SET ab_due_at = COALESCE(ab_due_at, $2::timestamptz) WHERE id = $1 AND ab_phase IS NOT NULL RETURNING ab_due_at;

-- AbTestsRepository.due
SELECT id FROM notifications WHERE ab_phase = 'sample' AND ab_due_at <= $1::timestamptz ORDER BY ab_due_at LIMIT $2;

-- AbTestsRepository.find
SELECT id, variants, options -> 'ab_test' ->> 'metric' AS metric FROM notifications WHERE id = $1 AND ab_phase = 'sample';

-- AbTestsRepository.tallies
SELECT d.variant, count(*) FILTER (WHERE d.status = $2::text)::int AS accepted, count(e.installation_id)::int AS metric
FROM notifications n
JOIN deliveries d ON d.notification_id = n.id AND d.notification_started_at = n.processing_started_at
LEFT JOIN notification_events e ON e.notification_id = n.id AND e.notification_started_at = n.processing_started_at
  AND e.installation_id = d.installation_id AND e.type = $3::text
WHERE n.id = $1 AND d.variant IS NOT NULL
GROUP BY d.variant;

-- AbTestsRepository.decide
WITH decided AS (
  UPDATE notifications SET ab_phase = 'winner', ab_winner = $2::text, ab_decided_at = $4::timestamptz
  WHERE id = $1 AND ab_phase = 'sample' AND canceled_at IS NULL AND fanned_out_at IS NOT NULL
  RETURNING app_id, id, processing_started_at
), decided_events AS (
  INSERT INTO webhook_messages (webhook_id, type, subject_id)
  SELECT w.id, 'notification.ab_test_decided', s.subject_id FROM (SELECT app_id, id FROM decided) AS s(app_id, subject_id)
  JOIN webhooks w ON w.app_id = s.app_id AND 'notification.ab_test_decided' = ANY (w.events)
), released AS (
  UPDATE deliveries d SET variant = $3::smallint, status = $5::text, next_attempt_at = NULL, updated_at = now()
  FROM decided n
  WHERE d.notification_id = n.id AND d.notification_started_at = n.processing_started_at
    AND d.status = $6::text AND d.next_attempt_at = 'infinity'::timestamptz
  RETURNING d.batch
)
SELECT (SELECT count(*) FROM decided)::int AS decided, ARRAY(SELECT DISTINCT batch FROM released ORDER BY batch) AS batches;
