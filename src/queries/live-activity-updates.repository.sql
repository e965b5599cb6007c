-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/live-activity/live-activity-updates.repository.ts; do not edit.

-- LiveActivityUpdatesRepository.locked
SELECT pg_advisory_xact_lock(hashtextextended(live_activity_id::text, 0)) FROM live_activity_updates WHERE id = $1;

SELECT u.id, u.seq, u.event, u.content, u.priority, u.accepted_at, u.status, u.attempts, u.live_activity_id,
  a.app_id, a.push_token, a.status AS activity_status, a.sent_seq
FROM live_activity_updates u JOIN live_activities a ON a.id = u.live_activity_id
WHERE u.id = $1;

WITH recorded AS (
  UPDATE live_activity_updates SET status = $2, reason = $3, attempts = $4, updated_at = now() WHERE id = $1
  RETURNING live_activity_id, seq)
UPDATE live_activities a SET
  sent_seq = CASE WHEN $5::boolean THEN GREATEST(a.sent_seq, r.seq) ELSE a.sent_seq END,
  status = COALESCE($6::varchar, a.status),
  ended_at = CASE WHEN $6::varchar IS NOT NULL THEN COALESCE(a.ended_at, now()) ELSE a.ended_at END,
  invalid_reason = COALESCE($7::varchar, a.invalid_reason),
  updated_at = now()
FROM recorded r WHERE a.id = r.live_activity_id;

-- LiveActivityUpdatesRepository.owed
SELECT id, attempts FROM live_activity_updates WHERE status = $3 AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
ORDER BY updated_at LIMIT $2;
