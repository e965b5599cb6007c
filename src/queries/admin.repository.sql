-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/admin/admin.repository.ts; do not edit.

-- AdminRepository.minutesSince
SELECT minute, outcome, sum(count)::int AS count FROM delivery_minutes WHERE minute >= $1
GROUP BY minute, outcome ORDER BY minute, outcome;

-- AdminRepository.minutesOf
SELECT minute, outcome, count FROM delivery_minutes WHERE notification_id = $1 ORDER BY minute, outcome LIMIT $2;
