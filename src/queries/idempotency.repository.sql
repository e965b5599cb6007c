-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/notifications/idempotency/idempotency.repository.ts; do not edit.

-- IdempotencyRepository.claim
INSERT INTO idempotency_keys AS k (app_id, key, request_hash, status, locked_until, expires_at)
SELECT $1::uuid, $2::text, $3::text, 'in_progress', now() + make_interval(secs => $4::float8), now() + make_interval(hours => $5::int)
WHERE (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL
ON CONFLICT (app_id, key) DO UPDATE SET
  request_hash = EXCLUDED.request_hash, status = 'in_progress', response_status = NULL, response_body = NULL, notification_id = NULL,
  locked_until = EXCLUDED.locked_until, created_at = now(), expires_at = EXCLUDED.expires_at
WHERE k.expires_at <= now()
   OR (k.status = 'in_progress' AND k.locked_until <= now() AND k.request_hash = EXCLUDED.request_hash AND k.notification_id IS NULL)
RETURNING key;

-- IdempotencyRepository.find
SELECT request_hash, status, response_status, response_body, notification_id, locked_until <= now() AS lock_expired
FROM idempotency_keys WHERE app_id = $1 AND key = $2;

-- IdempotencyRepository.complete
UPDATE idempotency_keys SET status = 'completed', response_status = $3, response_body = $4
WHERE app_id = $1 AND key = $2 AND status = 'in_progress' AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL;

-- IdempotencyRepository.release
DELETE FROM idempotency_keys WHERE app_id = $1 AND key = $2 AND status = 'in_progress' AND notification_id IS NULL;
