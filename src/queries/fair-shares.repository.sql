-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/fair-shares/fair-shares.repository.ts; do not edit.

-- FairSharesRepository.offer
SELECT pg_advisory_xact_lock(hashtext('fair_share:' || $1 || ':' || $2));

INSERT INTO fair_share_batches (app_id, lane, notification_id, batch)
SELECT $1, $2, $3, b FROM unnest($4::int[]) AS b ORDER BY b
ON CONFLICT (notification_id, batch) DO NOTHING;

UPDATE fair_share_batches SET queued_at = now()
WHERE id IN (
  SELECT id FROM fair_share_batches
  WHERE app_id = $1 AND lane = $2 AND queued_at IS NULL
  ORDER BY id
  LIMIT greatest(0, $3 - (SELECT count(*) FROM fair_share_batches WHERE app_id = $1 AND lane = $2 AND queued_at IS NOT NULL)))
RETURNING notification_id, batch;

-- FairSharesRepository.finished
SELECT app_id, lane FROM fair_share_batches WHERE notification_id = $1 AND batch = $2;

-- FairSharesRepository.freeAbandoned
DELETE FROM fair_share_batches f
WHERE f.queued_at < now() - make_interval(secs => $1)
  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.notification_id = f.notification_id AND d.batch = f.batch AND d.status = ANY($2::text[]))
RETURNING f.app_id, f.lane;

-- FairSharesRepository.queuedBefore
SELECT notification_id, batch FROM fair_share_batches
WHERE queued_at < now() - make_interval(secs => $1)
ORDER BY queued_at LIMIT $2;

-- FairSharesRepository.releaseHeld
SELECT pg_advisory_xact_lock(hashtext('fair_share:' || $1 || ':' || $2));

UPDATE fair_share_batches SET queued_at = now()
WHERE id IN (
  SELECT id FROM fair_share_batches
  WHERE app_id = $1 AND lane = $2 AND queued_at IS NULL
  ORDER BY id
  LIMIT greatest(0, $3 - (SELECT count(*) FROM fair_share_batches WHERE app_id = $1 AND lane = $2 AND queued_at IS NOT NULL)))
RETURNING notification_id, batch;
