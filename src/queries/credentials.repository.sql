-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/credentials/credentials.repository.ts; do not edit.

-- CredentialsRepository.resealAll
SELECT app_id, apns_private_key_enc, fcm_service_account_enc, vapid_private_key_enc, hms_client_secret_enc FROM app_credentials ORDER BY app_id FOR UPDATE;

UPDATE app_credentials SET "apns_private_key_enc" = $2, updated_at = now() WHERE app_id = $1;

-- CredentialsRepository.clear
UPDATE app_credentials SET "apns_key_id" = NULL, "apns_team_id" = NULL, "apns_topic" = NULL, "apns_production" = NULL, "apns_private_key_enc" = NULL, updated_at = now() WHERE app_id = $1;

-- CredentialsRepository.upsert
INSERT INTO app_credentials (app_id, "vapid_subject", "vapid_public_key")
VALUES ($1, $2, $3)
ON CONFLICT (app_id) DO UPDATE SET "vapid_subject" = EXCLUDED."vapid_subject", "vapid_public_key" = CASE WHEN app_credentials.vapid_public_key IS NULL THEN EXCLUDED."vapid_public_key" ELSE app_credentials."vapid_public_key" END, updated_at = now();
