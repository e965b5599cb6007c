-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/notifications/preview/preview.repository.ts; do not edit.

-- PreviewRepository.installation
SELECT platform, web_push_subscription IS NOT NULL AS holds_subscription, device ->> 'locale' AS locale, user_id,
  device ->> 'app_version' AS app_version, properties
FROM installations WHERE app_id = :app_id AND installation_id = :installation_id AND deleted_at IS NULL;
