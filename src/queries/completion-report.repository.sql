-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/completion-report.repository.ts; do not edit.

-- CompletionReportRepository.summary
SELECT n.app_id, n.stat_installations AS installations, n.stat_accepted AS accepted, n.stat_failed AS failed,
  n.stat_skipped AS skipped, (extract(epoch FROM n.completed_at - n.created_at) * 1000)::float8 AS duration_ms,
  COALESCE((SELECT jsonb_agg(jsonb_build_object('status', r.status, 'reason', r.reason, 'count', r.count) ORDER BY r.count DESC, r.reason)
            FROM (SELECT d.status, COALESCE(d.reason, 'Unknown') AS reason, count(*)::int AS count FROM deliveries d
                  WHERE d.notification_id = n.id AND d.status = ANY($2::text[])
                  GROUP BY 1, 2) r), '[]'::jsonb) AS reasons
FROM notifications n WHERE n.id = $1;
