-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/operators/operators.repository.ts; do not edit.

-- OperatorsRepository.insert
INSERT INTO operators (email) VALUES ($1) ON CONFLICT ((lower(email))) DO NOTHING RETURNING id;

DELETE FROM operator_grants WHERE operator_id = $1;

INSERT INTO operator_grants (operator_id, app_id, role)
SELECT $1, g.app_id, g.role FROM json_to_recordset($2::json) AS g(app_id uuid, role text);

-- OperatorsRepository.upsertBootstrap
INSERT INTO operators (email, bootstrap) VALUES ($1, true)
ON CONFLICT ((lower(email))) DO UPDATE SET bootstrap = true, disabled_at = NULL, updated_at = now()
RETURNING id;

DELETE FROM operator_grants WHERE operator_id = $1;

INSERT INTO operator_grants (operator_id, app_id, role)
SELECT $1, g.app_id, g.role FROM json_to_recordset($2::json) AS g(app_id uuid, role text);

-- OperatorsRepository.setGrants
DELETE FROM operator_grants WHERE operator_id = $1;

INSERT INTO operator_grants (operator_id, app_id, role)
SELECT $1, g.app_id, g.role FROM json_to_recordset($2::json) AS g(app_id uuid, role text);

-- OperatorsRepository.list
SELECT o.id, o.email, o.bootstrap, o.disabled_at, o.created_at, o.password_hash IS NOT NULL AS has_password, COALESCE((SELECT json_agg(json_build_object('app_id', g.app_id, 'role', g.role) ORDER BY g.app_id NULLS FIRST)
FROM operator_grants g WHERE g.operator_id = o.id), '[]') AS grants FROM operators o ORDER BY o.created_at, o.id;

-- OperatorsRepository.find
SELECT o.id, o.email, o.bootstrap, o.disabled_at, o.created_at, o.password_hash IS NOT NULL AS has_password, COALESCE((SELECT json_agg(json_build_object('app_id', g.app_id, 'role', g.role) ORDER BY g.app_id NULLS FIRST)
FROM operator_grants g WHERE g.operator_id = o.id), '[]') AS grants FROM operators o WHERE o.id = $1;

-- OperatorsRepository.findByEmail
SELECT o.id, o.email, o.bootstrap, o.disabled_at, o.created_at, o.password_hash IS NOT NULL AS has_password, COALESCE((SELECT json_agg(json_build_object('app_id', g.app_id, 'role', g.role) ORDER BY g.app_id NULLS FIRST)
FROM operator_grants g WHERE g.operator_id = o.id), '[]') AS grants, o.password_hash FROM operators o WHERE lower(o.email) = lower($1);

-- OperatorsRepository.disable
WITH op AS (UPDATE operators SET disabled_at = COALESCE(disabled_at, now()), updated_at = now() WHERE id = $1 RETURNING id),
  ended AS (UPDATE operator_sessions SET revoked_at = now() WHERE operator_id IN (SELECT id FROM op) AND revoked_at IS NULL)
SELECT id FROM op;

-- OperatorsRepository.insertInvitation
INSERT INTO operator_invitations (token_hash, operator_id, expires_at) VALUES ($1, $2, $3);

-- OperatorsRepository.acceptInvitation
UPDATE operator_invitations i SET used_at = now()
FROM operators o
WHERE i.token_hash = $1 AND i.used_at IS NULL AND i.expires_at > now() AND o.id = i.operator_id AND o.disabled_at IS NULL
RETURNING i.operator_id;

UPDATE operators SET password_hash = $2, updated_at = now() WHERE id = $1;

-- OperatorsRepository.insertSession
INSERT INTO operator_sessions (operator_id, token_hash, csrf, method, address, user_agent, expires_at)
VALUES (:operator_id, :token_hash, :csrf, :method, :address, :user_agent, :expires_at) RETURNING id;

-- OperatorsRepository.session
SELECT s.id, s.csrf, s.expires_at, o.id AS operator_id, o.email, COALESCE((SELECT json_agg(json_build_object('app_id', g.app_id, 'role', g.role) ORDER BY g.app_id NULLS FIRST)
FROM operator_grants g WHERE g.operator_id = o.id), '[]') AS grants
     FROM operator_sessions s JOIN operators o ON o.id = s.operator_id
     WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now() AND o.disabled_at IS NULL;

-- OperatorsRepository.sessions
SELECT id, method, address, user_agent, created_at, expires_at, revoked_at FROM operator_sessions
WHERE operator_id = $1 AND revoked_at IS NULL AND expires_at > now() ORDER BY created_at DESC, id LIMIT 100;

-- OperatorsRepository.revokeSession
UPDATE operator_sessions SET revoked_at = now() WHERE id = $1 AND operator_id = $2 AND revoked_at IS NULL;

-- OperatorsRepository.domains
SELECT domain, role, created_at FROM operator_domains ORDER BY domain;

-- OperatorsRepository.domain
SELECT role FROM operator_domains WHERE domain = lower($1);

-- OperatorsRepository.allowDomain
INSERT INTO operator_domains (domain, role) VALUES (lower($1), $2) ON CONFLICT (domain) DO UPDATE SET role = $2;

-- OperatorsRepository.removeDomain
DELETE FROM operator_domains WHERE domain = lower($1);
