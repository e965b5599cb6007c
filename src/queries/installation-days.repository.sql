-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/installation-days/installation-days.repository.ts; do not edit.

-- InstallationDaysRepository.snapshot
DELETE FROM installation_days WHERE day = $1::date;

INSERT INTO installation_days (app_id, day, platform, permission, installations)
SELECT app_id, $1::date, platform, permission, count(*)::int FROM installations
WHERE deleted_at IS NULL
GROUP BY app_id, platform, permission
RETURNING app_id;
