-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/admin/analytics/analytics.repository.ts; do not edit.

-- AnalyticsRepository.platformFunnel
WITH n AS (
  SELECT id, processing_started_at FROM notifications WHERE id = :notification_id AND app_id = :app_id
), d AS (
  SELECT d.installation_id, d.platform, d.status FROM deliveries d, n
  WHERE d.notification_id = n.id AND d.notification_started_at = n.processing_started_at
), e AS (
  SELECT e.installation_id, bool_or(e.type = 'received') AS received, bool_or(e.type = 'displayed') AS displayed, bool_or(e.type = 'opened') AS opened
  FROM notification_events e, n
  WHERE e.notification_id = n.id AND e.notification_started_at = n.processing_started_at
  GROUP BY e.installation_id
)
SELECT d.platform, count(*)::int AS deliveries,
  count(*) FILTER (WHERE d.status = 'accepted')::int AS accepted,
  count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
  count(*) FILTER (WHERE d.status = 'skipped')::int AS skipped,
  count(*) FILTER (WHERE e.received OR e.displayed OR e.opened)::int AS received,
  count(*) FILTER (WHERE e.displayed OR e.opened)::int AS displayed,
  count(*) FILTER (WHERE e.opened)::int AS opened
FROM d LEFT JOIN e ON e.installation_id = d.installation_id
GROUP BY d.platform ORDER BY d.platform;

-- AnalyticsRepository.sendDays
SELECT to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, count(*)::int AS sends,
  sum(stat_accepted)::int AS accepted, sum(stat_failed)::int AS failed, sum(stat_skipped)::int AS skipped, sum(stat_opened)::int AS opened
FROM notifications WHERE app_id = :app_id AND created_at >= :since AND NOT COALESCE((options ->> 'dry_run')::boolean, false)
GROUP BY 1 ORDER BY 1;

-- AnalyticsRepository.categories
SELECT COALESCE(options ->> 'category', 'transactional') AS category, count(*)::int AS sends,
  sum(stat_accepted)::int AS accepted, sum(stat_opened)::int AS opened
FROM notifications WHERE app_id = :app_id AND created_at >= :since AND NOT COALESCE((options ->> 'dry_run')::boolean, false)
GROUP BY 1 ORDER BY 1;

-- AnalyticsRepository.installationDays
SELECT to_char(day, 'YYYY-MM-DD') AS day, platform, permission, installations
FROM installation_days WHERE app_id = :app_id AND day >= :since::date
ORDER BY day, platform, permission;
