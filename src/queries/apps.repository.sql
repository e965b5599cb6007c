-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the calls in src/queries/sql-cases.ts; do not edit.

-- AppsRepository.insert
INSERT INTO apps (name) VALUES ($1) RETURNING id, name, created_at;

-- AppsRepository.list
SELECT id, name, created_at FROM apps ORDER BY created_at, id;

-- AppsRepository.find
SELECT id, name, created_at FROM apps WHERE id = $1;

-- AppsRepository.delete
WITH held AS (
  SELECT (SELECT count(*) FROM api_tokens WHERE app_id = $1)::int AS tokens,
         (SELECT count(*) FROM installations WHERE app_id = $1)::int AS installations,
         (SELECT count(*) FROM notifications WHERE app_id = $1)::int AS notifications,
         (SELECT count(*) FROM deliveries d JOIN notifications n ON n.id = d.notification_id WHERE n.app_id = $1)::int AS deliveries
), gone AS (
  DELETE FROM apps WHERE id = $1 RETURNING id, name, created_at
)
SELECT gone.*, held.* FROM gone, held;

-- AppsRepository.exists
SELECT 1 FROM apps WHERE id = $1;
