-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/sweeper/sweeper.repository.ts; do not edit.

-- SweeperRepository.unfannedNotifications
SELECT id, (send_at IS NOT NULL AND processing_started_at IS NULL AND canceled_at IS NULL) AS claimable FROM notifications
WHERE completed_at IS NULL AND fanned_out_at IS NULL AND created_at < now() - make_interval(secs => $1 / 1000.0)
  AND (send_at IS NULL OR send_at < now() - make_interval(secs => $1 / 1000.0) OR canceled_at IS NOT NULL)
  -- A fan-out held behind its app's window is owed no job yet (docs/api.md#fair-sharing).
  AND NOT EXISTS (SELECT 1 FROM fair_share_fanouts f WHERE f.notification_id = notifications.id AND f.queued_at IS NULL)
ORDER BY created_at LIMIT $2;

-- SweeperRepository.resetStuck
UPDATE deliveries d SET status = $2::text, next_attempt_at = NULL, updated_at = now()
FROM notifications n
WHERE n.completed_at IS NULL AND n.processing_started_at < now() - make_interval(secs => $1)
  AND d.notification_id = n.id AND d.status = $3::text AND d.updated_at < now() - make_interval(secs => $1)
RETURNING d.notification_id, d.batch;

-- SweeperRepository.overdueBatches
SELECT DISTINCT d.notification_id, d.batch FROM notifications n JOIN deliveries d ON d.notification_id = n.id
WHERE n.completed_at IS NULL AND n.processing_started_at < now() - make_interval(secs => $1)
  AND d.status = ANY($3::text[]) AND d.updated_at < now() - make_interval(secs => $1)
  AND (d.next_attempt_at IS NULL OR d.next_attempt_at < now() - make_interval(secs => $1))
  -- A batch held behind its app's window is owed no job yet (docs/api.md#fair-sharing).
  AND NOT EXISTS (SELECT 1 FROM fair_share_batches f WHERE f.notification_id = d.notification_id AND f.batch = d.batch AND f.queued_at IS NULL)
LIMIT $2;

-- SweeperRepository.purgeIdempotencyKeys
DELETE FROM idempotency_keys WHERE expires_at <= now();
