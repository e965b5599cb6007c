-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/live-activities/live-activities.repository.ts; do not edit.

-- LiveActivitiesRepository.installation
SELECT id, platform FROM installations WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL;

-- LiveActivitiesRepository.upsert
WITH upserted AS (
  INSERT INTO live_activities AS a (app_id, activity_id, installation_id, attributes_type, push_token)
  VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (app_id, activity_id) DO UPDATE SET
    installation_id = EXCLUDED.installation_id, attributes_type = EXCLUDED.attributes_type, push_token = EXCLUDED.push_token,
    status = CASE WHEN a.push_token IS DISTINCT FROM EXCLUDED.push_token THEN $6 ELSE a.status END,
    ended_at = CASE WHEN a.push_token IS DISTINCT FROM EXCLUDED.push_token THEN NULL ELSE a.ended_at END,
    invalid_reason = CASE WHEN a.push_token IS DISTINCT FROM EXCLUDED.push_token THEN NULL ELSE a.invalid_reason END,
    updated_at = now()
  RETURNING *, (xmax = 0) AS created)
SELECT a.id, a.activity_id, i.installation_id AS installation_key, a.attributes_type, a.status, a.created_at, a.updated_at,
a.ended_at, a.invalid_reason, a.created FROM upserted a JOIN installations i ON i.id = a.installation_id;

-- LiveActivitiesRepository.find
SELECT a.id, a.activity_id, i.installation_id AS installation_key, a.attributes_type, a.status, a.created_at, a.updated_at,
a.ended_at, a.invalid_reason FROM live_activities a JOIN installations i ON i.id = a.installation_id WHERE a.app_id = $1 AND a.activity_id = $2;

-- LiveActivitiesRepository.end
UPDATE live_activities SET status = $3, ended_at = COALESCE(ended_at, now()), updated_at = now()
WHERE app_id = $1 AND activity_id = $2;

-- LiveActivitiesRepository.accept
WITH activity AS (
  UPDATE live_activities SET last_seq = last_seq + 1, last_accepted_at = GREATEST(last_accepted_at, $3::timestamptz), updated_at = now()
  WHERE app_id = $1 AND activity_id = $2 AND status = $4
  RETURNING id, last_seq, last_accepted_at)
INSERT INTO live_activity_updates (live_activity_id, seq, event, content, priority, accepted_at)
SELECT id, last_seq, $5, $6::jsonb, $7, last_accepted_at FROM activity
RETURNING id, seq, event, status, reason, accepted_at;

-- LiveActivitiesRepository.acceptWithResponse
WITH activity AS (
  UPDATE live_activities SET last_seq = last_seq + 1, last_accepted_at = GREATEST(last_accepted_at, $3::timestamptz), updated_at = now()
  WHERE app_id = $1 AND activity_id = $2 AND status = $4
  RETURNING id, last_seq, last_accepted_at)
INSERT INTO live_activity_updates (live_activity_id, seq, event, content, priority, accepted_at)
SELECT id, last_seq, $5, $6::jsonb, $7, last_accepted_at FROM activity
RETURNING id, seq, event, status, reason, accepted_at;

UPDATE idempotency_keys SET status = 'completed', response_status = $3, response_body = $4
WHERE app_id = $1 AND key = $2 AND status = 'in_progress';

-- LiveActivitiesRepository.withLastUpdate
SELECT a.id, a.activity_id, i.installation_id AS installation_key, a.attributes_type, a.status, a.created_at, a.updated_at,
a.ended_at, a.invalid_reason, u.id AS last_id, u.seq AS last_seq, u.event AS last_event, u.status AS last_status, u.reason AS last_reason,
       u.accepted_at AS last_accepted_at, u.updated_at AS last_updated_at
     FROM live_activities a JOIN installations i ON i.id = a.installation_id
     LEFT JOIN LATERAL (
       SELECT id, seq, event, status, reason, accepted_at, updated_at FROM live_activity_updates
       WHERE live_activity_id = a.id ORDER BY seq DESC LIMIT 1) u ON true
     WHERE a.app_id = $1 ORDER BY a.created_at DESC, a.id LIMIT $2;

-- LiveActivitiesRepository.findUpdate
SELECT u.id, u.seq, u.event, u.status, u.reason, u.accepted_at FROM live_activity_updates u
JOIN live_activities a ON a.id = u.live_activity_id WHERE a.app_id = $1 AND a.activity_id = $2 AND u.id = $3;

-- LiveActivitiesRepository.insertChannel
INSERT INTO live_activity_channels (app_id, id, storage) VALUES ($1, $2, $3) RETURNING id, storage, created_at;

-- LiveActivitiesRepository.channels
SELECT id, storage, created_at FROM live_activity_channels WHERE app_id = $1 ORDER BY created_at DESC, id;

-- LiveActivitiesRepository.findChannel
SELECT id, storage, created_at FROM live_activity_channels WHERE app_id = $1 AND id = $2;

-- LiveActivitiesRepository.deleteChannel
DELETE FROM live_activity_channels WHERE app_id = $1 AND id = $2;
