-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/apps/apps.repository.ts; do not edit.

-- AppsRepository.insert
INSERT INTO apps (name) VALUES ($1) RETURNING id, name, created_at;

-- AppsRepository.list
SELECT id, name, created_at FROM apps ORDER BY created_at, id;

-- AppsRepository.find
SELECT id, name, created_at FROM apps WHERE id = $1;

-- AppsRepository.delete
WITH held AS (
  SELECT (SELECT count(*) FROM api_tokens WHERE app_id = $1)::int AS tokens,
         (SELECT count(*) FROM installations WHERE app_id = $1)::int AS installations,
         (SELECT count(*) FROM notifications WHERE app_id = $1)::int AS notifications,
         (SELECT count(*) FROM deliveries d JOIN notifications n ON n.id = d.notification_id WHERE n.app_id = $1)::int AS deliveries
), uncounted AS (
  DELETE FROM installation_badges b USING installations i WHERE i.id = b.installation_id AND i.app_id = $1
), unstaged AS (
  DELETE FROM fanout_audiences f USING notifications n WHERE n.id = f.notification_id AND n.app_id = $1
), gone AS (
  DELETE FROM apps WHERE id = $1 RETURNING id, name, created_at
)
SELECT gone.*, held.* FROM gone, held;

-- AppsRepository.settings
SELECT id, name, frequency_cap_max, frequency_cap_hours, quiet_hours_start, quiet_hours_end,
identity_verification, inbox_days, identity_secret_enc, identity_secret_previous_enc FROM apps WHERE id = $1;

-- AppsRepository.updateSettings
UPDATE apps SET
       frequency_cap_max = CASE WHEN $2 THEN $3::smallint ELSE frequency_cap_max END,
       frequency_cap_hours = CASE WHEN $2 THEN $4::smallint ELSE frequency_cap_hours END,
       quiet_hours_start = CASE WHEN $5 THEN $6::character(5) ELSE quiet_hours_start END,
       quiet_hours_end = CASE WHEN $5 THEN $7::character(5) ELSE quiet_hours_end END,
       identity_verification = coalesce($8::boolean, identity_verification),
       inbox_days = coalesce($9::smallint, inbox_days)
     WHERE id = $1
     RETURNING id, name, frequency_cap_max, frequency_cap_hours, quiet_hours_start, quiet_hours_end,
identity_verification, inbox_days, identity_secret_enc, identity_secret_previous_enc;

-- AppsRepository.changeIdentitySecrets
SELECT id, name, frequency_cap_max, frequency_cap_hours, quiet_hours_start, quiet_hours_end,
identity_verification, inbox_days, identity_secret_enc, identity_secret_previous_enc FROM apps WHERE id = $1 FOR UPDATE;

UPDATE apps SET identity_secret_enc = $2, identity_secret_previous_enc = $3 WHERE id = $1 RETURNING id, name, frequency_cap_max, frequency_cap_hours, quiet_hours_start, quiet_hours_end,
identity_verification, inbox_days, identity_secret_enc, identity_secret_previous_enc;

-- AppsRepository.exists
SELECT 1 FROM apps WHERE id = $1;
