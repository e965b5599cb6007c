-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/audit/audit.repository.ts; do not edit.

-- AuditRepository.insert
INSERT INTO audit_log (actor_kind, actor_id, actor, action, app_id, target, address, details)
VALUES (:actor_kind, :actor_id, :actor, :action, :app_id, :target, :address, :details);

-- AuditRepository.list
SELECT id::text, at, actor_kind, actor_id, actor, action, app_id, target, address, details FROM audit_log
WHERE (:actor::text IS NULL OR actor ILIKE '%' || :actor || '%')
  AND (:action::text IS NULL OR action = :action)
  AND (:app_id::uuid IS NULL OR app_id = :app_id)
  AND (:apps::uuid[] IS NULL OR app_id = ANY(:apps) OR (:without_app AND app_id IS NULL))
  AND (:from::timestamptz IS NULL OR at >= :from)
  AND (:to::timestamptz IS NULL OR at < :to)
  AND (:before::bigint IS NULL OR id < :before)
ORDER BY id DESC LIMIT :limit;
