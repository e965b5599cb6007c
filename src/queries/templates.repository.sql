-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/templates/templates.repository.ts; do not edit.

-- TemplatesRepository.save
SELECT pg_advisory_xact_lock(hashtextextended('templates:' || :app_id::text || ':' || :key::text, 0));

WITH latest AS (
  SELECT version, name, notification, localizations::text AS localizations, data FROM template_versions
  WHERE app_id = :app_id::uuid AND key = :key::text ORDER BY version DESC LIMIT 1
), written AS (
  INSERT INTO template_versions (app_id, key, version, name, notification, localizations, data)
  SELECT :app_id::uuid, :key::text, COALESCE((SELECT version FROM latest), 0) + 1, :name::text, :notification::jsonb, :localizations::json, :data::jsonb
  WHERE NOT EXISTS (
    SELECT 1 FROM latest l WHERE l.name = :name::text AND l.notification = :notification::jsonb
      AND l.localizations IS NOT DISTINCT FROM :localizations::json::text AND l.data IS NOT DISTINCT FROM :data::jsonb)
  RETURNING version
)
SELECT (SELECT version FROM written) AS written, (SELECT version FROM latest) AS previous;

SELECT v.key, v.version, v.name, v.notification, v.localizations, v.data,
(SELECT min(f.created_at) FROM template_versions f WHERE f.app_id = v.app_id AND f.key = v.key) AS created_at, v.created_at AS updated_at FROM template_versions v
WHERE v.app_id = :app_id AND v.key = :key AND (:version::int IS NULL OR v.version = :version::int)
ORDER BY v.version DESC LIMIT 1;

-- TemplatesRepository.list
SELECT v.key, v.version, v.name, v.notification, v.localizations, v.data,
(SELECT min(f.created_at) FROM template_versions f WHERE f.app_id = v.app_id AND f.key = v.key) AS created_at, v.created_at AS updated_at FROM (SELECT DISTINCT ON (key) * FROM template_versions WHERE app_id = :app_id ORDER BY key, version DESC) v ORDER BY v.key;

-- TemplatesRepository.find
SELECT v.key, v.version, v.name, v.notification, v.localizations, v.data,
(SELECT min(f.created_at) FROM template_versions f WHERE f.app_id = v.app_id AND f.key = v.key) AS created_at, v.created_at AS updated_at FROM template_versions v
WHERE v.app_id = :app_id AND v.key = :key AND (:version::int IS NULL OR v.version = :version::int)
ORDER BY v.version DESC LIMIT 1;

-- TemplatesRepository.find (a version)
SELECT v.key, v.version, v.name, v.notification, v.localizations, v.data,
(SELECT min(f.created_at) FROM template_versions f WHERE f.app_id = v.app_id AND f.key = v.key) AS created_at, v.created_at AS updated_at FROM template_versions v
WHERE v.app_id = :app_id AND v.key = :key AND (:version::int IS NULL OR v.version = :version::int)
ORDER BY v.version DESC LIMIT 1;

-- TemplatesRepository.delete
WITH gone AS (DELETE FROM template_versions WHERE app_id = :app_id AND key = :key RETURNING 1) SELECT count(*)::int AS deleted FROM gone;
