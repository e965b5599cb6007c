-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/metrics/database-ping.repository.ts; do not edit.

-- DatabasePingRepository.ping
SELECT 1;
