-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/live-activity/live-activity-broadcasts.repository.ts; do not edit.

-- LiveActivityBroadcastsRepository.locked
SELECT 1 FROM live_activity_broadcasts WHERE id = $1 FOR UPDATE;

SELECT id, app_id, channel_id, event, content, priority, accepted_at, status, attempts FROM live_activity_broadcasts WHERE id = $1;

UPDATE live_activity_broadcasts SET status = $2, reason = $3, attempts = $4, updated_at = now() WHERE id = $1;

-- LiveActivityBroadcastsRepository.owed
SELECT id, attempts FROM live_activity_broadcasts WHERE status = $3 AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
ORDER BY updated_at LIMIT $2;
