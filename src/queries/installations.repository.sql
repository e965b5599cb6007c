-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/installations/installations.repository.ts; do not edit.

-- InstallationsRepository.find
SELECT id, app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, deleted_at, tags, properties,
live_activity_start_tokens, widget_push_token, COALESCE((SELECT b.badge FROM installation_badges b WHERE b.installation_id = installations.id), 0) AS badge FROM installations WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL;

-- InstallationsRepository.findByUser
SELECT id, app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, deleted_at, tags, properties,
live_activity_start_tokens, widget_push_token, COALESCE((SELECT b.badge FROM installation_badges b WHERE b.installation_id = installations.id), 0) AS badge FROM installations
     WHERE app_id = $1 AND user_id = $2 AND deleted_at IS NULL ORDER BY last_seen_at DESC LIMIT $3;

-- InstallationsRepository.browse
SELECT id, app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, deleted_at, tags, properties,
live_activity_start_tokens, widget_push_token, COALESCE((SELECT b.badge FROM installation_badges b WHERE b.installation_id = i.id), 0) AS badge FROM installations i
     WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.installation_id > $2 AND TRUE
     ORDER BY i.installation_id LIMIT $3;

-- InstallationsRepository.browse (filter)
SET LOCAL statement_timeout = 10000;

SELECT id, app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, deleted_at, tags, properties,
live_activity_start_tokens, widget_push_token, COALESCE((SELECT b.badge FROM installation_badges b WHERE b.installation_id = i.id), 0) AS badge FROM installations i
     WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.installation_id > $2 AND ((i.platform = ANY($4::text[])) AND (i.properties @> $5::jsonb) AND (app_version_key(i.device ->> 'app_version') >= $6::integer[]) AND (i.last_seen_at >= $7::timestamptz) AND ((i.tags @> ARRAY[$8::text]) OR ((lower(substring(i.device ->> 'locale' FROM '^[A-Za-z]+')) <> $9::text) IS NOT TRUE)))
     ORDER BY i.installation_id LIMIT $3;

-- InstallationsRepository.countByApp
SELECT app_id, platform, count(*)::int AS count FROM installations WHERE deleted_at IS NULL GROUP BY app_id, platform;

-- InstallationsRepository.channelOf
SELECT platform, web_push_subscription IS NOT NULL AS subscribed FROM installations WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL;

-- InstallationsRepository.update
WITH updated AS (UPDATE installations SET
  user_id = CASE WHEN $3::boolean THEN $4::varchar ELSE user_id END,
  identifier_updated_at = CASE WHEN $3::boolean AND user_id IS DISTINCT FROM $4::varchar THEN now() ELSE identifier_updated_at END,
  permission = COALESCE($5::varchar, permission),
  permission_updated_at = CASE WHEN permission IS DISTINCT FROM COALESCE($5::varchar, permission) THEN now() ELSE permission_updated_at END,
  device = CASE WHEN $6::jsonb IS NULL THEN device ELSE device || $6::jsonb END,
  push_token = CASE WHEN $8::jsonb IS NOT NULL THEN NULL ELSE COALESCE($7::text, push_token) END,
  web_push_subscription = CASE WHEN $7::text IS NOT NULL THEN NULL ELSE COALESCE($8::jsonb, web_push_subscription) END,
  invalidated_at = CASE WHEN push_token IS DISTINCT FROM CASE WHEN $8::jsonb IS NOT NULL THEN NULL ELSE COALESCE($7::text, push_token) END
    OR web_push_subscription IS DISTINCT FROM CASE WHEN $7::text IS NOT NULL THEN NULL ELSE COALESCE($8::jsonb, web_push_subscription) END THEN NULL ELSE invalidated_at END,
  invalid_reason = CASE WHEN push_token IS DISTINCT FROM CASE WHEN $8::jsonb IS NOT NULL THEN NULL ELSE COALESCE($7::text, push_token) END
    OR web_push_subscription IS DISTINCT FROM CASE WHEN $7::text IS NOT NULL THEN NULL ELSE COALESCE($8::jsonb, web_push_subscription) END THEN NULL ELSE invalid_reason END,
  tags = COALESCE($9::text[], tags),
  properties = CASE WHEN $11::jsonb IS NULL THEN properties
    WHEN $12::boolean THEN jsonb_strip_nulls($11::jsonb) ELSE jsonb_strip_nulls(properties || $11::jsonb) END,
  live_activity_start_tokens = COALESCE($14::jsonb, live_activity_start_tokens),
  widget_push_token = COALESCE($15::varchar, widget_push_token),
  last_seen_at = now()
WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL
  AND ($11::jsonb IS NULL OR (SELECT count(*) FROM jsonb_object_keys(CASE WHEN $11::jsonb IS NULL THEN properties
    WHEN $12::boolean THEN jsonb_strip_nulls($11::jsonb) ELSE jsonb_strip_nulls(properties || $11::jsonb) END)) <= $13)
RETURNING id, app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, deleted_at, tags, properties,
live_activity_start_tokens, widget_push_token),
badge_set AS (
  INSERT INTO installation_badges (installation_id, badge) SELECT id, $10::int FROM updated WHERE $10::int IS NOT NULL
  ON CONFLICT (installation_id) DO UPDATE SET badge = EXCLUDED.badge
  RETURNING installation_id, badge
)
SELECT u.*, COALESCE(s.badge, (SELECT b.badge FROM installation_badges b WHERE b.installation_id = u.id), 0) AS badge
FROM updated u LEFT JOIN badge_set s ON s.installation_id = u.id;

-- InstallationsRepository.create
WITH created AS (INSERT INTO installations AS i (app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
  permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, tags, properties, live_activity_start_tokens, widget_push_token)
VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::varchar, COALESCE($8::varchar, 'unknown'), now(), now(),
  CASE WHEN $7::varchar IS NOT NULL THEN now() END, CASE WHEN $8::varchar IS NOT NULL THEN now() END, $9::text[],
  jsonb_strip_nulls($11::jsonb), $12::jsonb, $13::varchar)
ON CONFLICT (app_id, installation_id) DO UPDATE SET
  platform = EXCLUDED.platform, push_token = EXCLUDED.push_token, web_push_subscription = EXCLUDED.web_push_subscription,
  device = EXCLUDED.device, user_id = EXCLUDED.user_id, permission = EXCLUDED.permission,
  registered_at = EXCLUDED.registered_at, last_seen_at = EXCLUDED.last_seen_at,
  identifier_updated_at = EXCLUDED.identifier_updated_at, permission_updated_at = EXCLUDED.permission_updated_at,
  invalidated_at = NULL, invalid_reason = NULL, deleted_at = NULL, tags = EXCLUDED.tags,
  properties = EXCLUDED.properties, live_activity_start_tokens = EXCLUDED.live_activity_start_tokens, widget_push_token = EXCLUDED.widget_push_token
WHERE i.deleted_at IS NOT NULL
RETURNING id, app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, deleted_at, tags, properties,
live_activity_start_tokens, widget_push_token),
badge_set AS (
  INSERT INTO installation_badges (installation_id, badge) SELECT id, $10::int FROM created WHERE $10::int IS NOT NULL
  ON CONFLICT (installation_id) DO UPDATE SET badge = EXCLUDED.badge
  RETURNING installation_id, badge
)
SELECT c.*, COALESCE($10::int, 0) AS badge FROM created c;

-- InstallationsRepository.softDelete
WITH deleted AS (UPDATE installations SET deleted_at = now(), push_token = NULL, web_push_subscription = NULL, user_id = NULL,
    device = '{}'::jsonb, tags = '{}', properties = '{}'::jsonb, live_activity_start_tokens = '{}'::jsonb,
    widget_push_token = NULL
  WHERE app_id = $1 AND installation_id = $2 AND deleted_at IS NULL
  RETURNING id),
uncounted AS (DELETE FROM installation_badges b USING deleted d WHERE b.installation_id = d.id)
SELECT id FROM deleted;
