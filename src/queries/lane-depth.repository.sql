-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/metrics/lane-depth.repository.ts; do not edit.

-- LaneDepthRepository.depths
SELECT app_id, lane, count(*) FILTER (WHERE queued_at IS NOT NULL) AS queued, count(*) FILTER (WHERE queued_at IS NULL) AS held,
       min(created_at) FILTER (WHERE queued_at IS NULL) AS oldest_held_at
FROM fair_share_batches GROUP BY app_id, lane
UNION ALL
SELECT app_id, 'fanout', count(*) FILTER (WHERE queued_at IS NOT NULL), count(*) FILTER (WHERE queued_at IS NULL),
       min(created_at) FILTER (WHERE queued_at IS NULL)
FROM fair_share_fanouts GROUP BY app_id;
