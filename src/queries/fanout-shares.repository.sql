-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/fair-shares/fanout-shares.repository.ts; do not edit.

-- FanoutSharesRepository.offer
SELECT pg_advisory_xact_lock(hashtextextended('fanout_share:' || :app_id::text, 0));

INSERT INTO fair_share_fanouts (app_id, notification_id)
SELECT :app_id::uuid, n FROM unnest(:notification_ids::uuid[]) WITH ORDINALITY AS held(n, position) ORDER BY position
ON CONFLICT (notification_id) DO NOTHING;

UPDATE fair_share_fanouts SET queued_at = now()
WHERE id IN (
  SELECT id FROM fair_share_fanouts
  WHERE app_id = :app_id::uuid AND queued_at IS NULL
  ORDER BY id
  LIMIT greatest(0, :window::int - (SELECT count(*) FROM fair_share_fanouts WHERE app_id = :app_id::uuid AND queued_at IS NOT NULL)))
RETURNING notification_id;

-- FanoutSharesRepository.finished
SELECT app_id FROM fair_share_fanouts WHERE notification_id = :notification_id::uuid;

-- FanoutSharesRepository.freeEnded
DELETE FROM fair_share_fanouts f USING notifications n
WHERE n.id = f.notification_id AND (n.fanned_out_at IS NOT NULL OR n.completed_at IS NOT NULL)
RETURNING f.app_id;

-- FanoutSharesRepository.releaseHeld
SELECT pg_advisory_xact_lock(hashtextextended('fanout_share:' || :app_id::text, 0));

UPDATE fair_share_fanouts SET queued_at = now()
WHERE id IN (
  SELECT id FROM fair_share_fanouts
  WHERE app_id = :app_id::uuid AND queued_at IS NULL
  ORDER BY id
  LIMIT greatest(0, :window::int - (SELECT count(*) FROM fair_share_fanouts WHERE app_id = :app_id::uuid AND queued_at IS NOT NULL)))
RETURNING notification_id;
