-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/notifications/audiences/audiences.repository.ts; do not edit.

-- AudiencesRepository.count (user_ids)
SET LOCAL statement_timeout = 10000;

SELECT i.platform, count(*)::int AS installations, count(*) FILTER (WHERE NOT (i.permission = $2::text OR i.invalidated_at IS NOT NULL OR (i.push_token IS NULL AND i.web_push_subscription IS NULL)))::int AS sendable, count(DISTINCT i.user_id)::int AS users
FROM installations i
WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.user_id = ANY($3::text[])
GROUP BY GROUPING SETS ((i.platform), ());

-- AudiencesRepository.count (tags)
SET LOCAL statement_timeout = 10000;

SELECT i.platform, count(*)::int AS installations, count(*) FILTER (WHERE NOT (i.permission = $2::text OR i.invalidated_at IS NOT NULL OR (i.push_token IS NULL AND i.web_push_subscription IS NULL)))::int AS sendable, count(DISTINCT i.user_id)::int AS users
FROM installations i
WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.tags && $3::text[]
GROUP BY GROUPING SETS ((i.platform), ());

-- AudiencesRepository.count (filter)
SET LOCAL statement_timeout = 10000;

SELECT i.platform, count(*)::int AS installations, count(*) FILTER (WHERE NOT (i.permission = $2::text OR i.invalidated_at IS NOT NULL OR (i.push_token IS NULL AND i.web_push_subscription IS NULL)))::int AS sendable, count(DISTINCT i.user_id)::int AS users
FROM installations i
WHERE i.app_id = $1 AND i.deleted_at IS NULL AND ((i.platform = ANY($3::text[])) AND (i.properties @> $4::jsonb) AND (app_version_key(i.device ->> 'app_version') >= $5::integer[]) AND (i.last_seen_at >= $6::timestamptz) AND ((i.tags @> ARRAY[$7::text]) OR ((lower(substring(i.device ->> 'locale' FROM '^[A-Za-z]+')) <> $8::text) IS NOT TRUE)))
GROUP BY GROUPING SETS ((i.platform), ());

-- AudiencesRepository.count (all)
SET LOCAL statement_timeout = 10000;

SELECT i.platform, count(*)::int AS installations, count(*) FILTER (WHERE NOT (i.permission = $2::text OR i.invalidated_at IS NOT NULL OR (i.push_token IS NULL AND i.web_push_subscription IS NULL)))::int AS sendable, count(DISTINCT i.user_id)::int AS users
FROM installations i
WHERE i.app_id = $1 AND i.deleted_at IS NULL
GROUP BY GROUPING SETS ((i.platform), ());

-- AudiencesRepository.count (topic)
SET LOCAL statement_timeout = 10000;

SELECT i.platform, count(*)::int AS installations, count(*) FILTER (WHERE NOT (i.permission = $2::text OR i.invalidated_at IS NOT NULL OR (i.push_token IS NULL AND i.web_push_subscription IS NULL)))::int AS sendable, count(DISTINCT i.user_id)::int AS users
 FROM installations i
 WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.user_id IN (SELECT w.user_id FROM (
SELECT a.user_id FROM (SELECT s.user_id FROM topic_subscriptions s
  WHERE NOT COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = $1 AND t.key = $3::text), false) AND s.app_id = $1 AND s.topic_key = $3::text AND s.subscribed AND s.user_id > ''
  ORDER BY s.user_id LIMIT NULL) a
UNION ALL
SELECT b.user_id FROM (SELECT DISTINCT u.user_id FROM installations u
  WHERE COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = $1 AND t.key = $3::text), false) AND u.app_id = $1 AND u.deleted_at IS NULL AND u.user_id > ''
  ORDER BY u.user_id LIMIT NULL) b) w) AND NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = $1 AND s.topic_key = $3::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = $1 AND t.key = $3::text), false))
 GROUP BY GROUPING SETS ((i.platform), ());
