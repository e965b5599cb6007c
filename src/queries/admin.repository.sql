-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/admin/admin.repository.ts; do not edit.

-- AdminRepository.minutesSince
SELECT minute, outcome, sum(count)::int AS count FROM delivery_minutes WHERE minute >= $1
GROUP BY minute, outcome ORDER BY minute, outcome;

-- AdminRepository.minutesOfAppsSince
SELECT m.minute, m.outcome, sum(m.count)::int AS count FROM delivery_minutes m JOIN notifications n ON n.id = m.notification_id
WHERE m.minute >= $1 AND n.app_id = ANY($2::uuid[])
GROUP BY m.minute, m.outcome ORDER BY m.minute, m.outcome;

-- AdminRepository.minutesOf
SELECT minute, outcome, count FROM delivery_minutes WHERE notification_id = $1 ORDER BY minute, outcome LIMIT $2;
