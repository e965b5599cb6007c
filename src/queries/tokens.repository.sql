-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/auth/tokens.repository.ts; do not edit.

-- TokensRepository.insert
INSERT INTO api_tokens (app_id, name, token_hash, abilities, expires_at)
VALUES ($1, $2, $3, $4, CASE WHEN $5::int IS NULL THEN NULL ELSE now() + make_interval(days => $5::int) END)
RETURNING id, app_id, name, abilities, created_at, expires_at, revoked_at, last_used_at;

-- TokensRepository.listByApp
SELECT id, app_id, name, abilities, created_at, expires_at, revoked_at, last_used_at FROM api_tokens WHERE app_id = $1 ORDER BY created_at, id;

-- TokensRepository.revoke
UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING id, app_id, name, abilities, created_at, expires_at, revoked_at, last_used_at;

-- TokensRepository.findByHash
SELECT id, app_id, abilities, expires_at, revoked_at, last_used_at FROM api_tokens WHERE token_hash = $1;

-- TokensRepository.touchLastUsed
UPDATE api_tokens SET last_used_at = now()
WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= now() - make_interval(secs => $2));
