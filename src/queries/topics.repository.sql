-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/topics/topics.repository.ts; do not edit.

-- TopicsRepository.upsert
SELECT pg_advisory_xact_lock(hashtextextended('topics:' || :app_id::text, 0));

INSERT INTO topics (app_id, key, name, description, default_subscribed)
SELECT :app_id::uuid, :key::text, :name::text, :description::text, :default_subscribed::boolean
WHERE EXISTS (SELECT 1 FROM topics WHERE app_id = :app_id::uuid AND key = :key::text)
   OR (SELECT count(*) FROM topics WHERE app_id = :app_id::uuid) < :max_topics::int
ON CONFLICT (app_id, key) DO UPDATE
  SET name = EXCLUDED.name, description = EXCLUDED.description, default_subscribed = EXCLUDED.default_subscribed, updated_at = now()
RETURNING key, name, description, default_subscribed, created_at, updated_at, (xmax = 0) AS created;

-- TopicsRepository.list
SELECT key, name, description, default_subscribed, created_at, updated_at FROM topics WHERE app_id = :app_id ORDER BY key;

-- TopicsRepository.find
SELECT key, name, description, default_subscribed, created_at, updated_at FROM topics WHERE app_id = :app_id AND key = :key;

-- TopicsRepository.delete
WITH gone AS (
  DELETE FROM topics WHERE app_id = :app_id AND key = :key RETURNING key
), choices AS (
  DELETE FROM topic_subscriptions s USING gone WHERE s.app_id = :app_id AND s.topic_key = gone.key
)
SELECT count(*)::int AS deleted FROM gone;
