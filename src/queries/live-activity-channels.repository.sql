-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/live-activities/live-activity-channels.repository.ts; do not edit.

-- LiveActivityChannelsRepository.accept
INSERT INTO live_activity_broadcasts (app_id, channel_id, event, content, priority, accepted_at)
SELECT c.app_id, c.id, $3, $4::jsonb, $5, $6 FROM live_activity_channels c WHERE c.app_id = $1 AND c.id = $2
RETURNING id, channel_id, event, status, reason, attempts, accepted_at;

-- LiveActivityChannelsRepository.acceptWithResponse
INSERT INTO live_activity_broadcasts (app_id, channel_id, event, content, priority, accepted_at)
SELECT c.app_id, c.id, $3, $4::jsonb, $5, $6 FROM live_activity_channels c WHERE c.app_id = $1 AND c.id = $2
RETURNING id, channel_id, event, status, reason, attempts, accepted_at;

UPDATE idempotency_keys SET status = 'completed', response_status = $3, response_body = $4
WHERE app_id = $1 AND key = $2 AND status = 'in_progress';

-- LiveActivityChannelsRepository.find
SELECT id, channel_id, event, status, reason, attempts, accepted_at FROM live_activity_broadcasts WHERE app_id = $1 AND channel_id = $2 AND id = $3;

-- LiveActivityChannelsRepository.newestPerChannel
SELECT DISTINCT ON (channel_id) id, channel_id, event, status, reason, attempts, accepted_at FROM live_activity_broadcasts
WHERE app_id = $1 AND channel_id = ANY($2::text[]) ORDER BY channel_id, accepted_at DESC, id DESC;
