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
