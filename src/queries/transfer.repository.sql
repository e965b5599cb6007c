-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/transfer/transfer.repository.ts; do not edit.

-- TransferRepository.write
WITH input AS (
  SELECT r.line, r.installation_id, r.platform, r.push_token, r.web_push_subscription, r.widget_push_token, r.device, r.user_id,
    COALESCE(r.permission, 'unknown') AS permission, r.permission AS given_permission, r.tags, jsonb_strip_nulls(r.properties) AS properties,
    r.badge, r.live_activity_start_tokens, r.registered_at, r.last_seen_at, r.identifier_updated_at, r.permission_updated_at,
    r.invalidated_at, r.invalid_reason
  FROM jsonb_to_recordset($2::jsonb) AS r(line int, installation_id varchar, platform varchar, push_token text,
  web_push_subscription jsonb, widget_push_token text, device jsonb, user_id varchar, permission varchar, tags text[], properties jsonb, badge int,
  live_activity_start_tokens jsonb, registered_at timestamptz, last_seen_at timestamptz, identifier_updated_at timestamptz,
  permission_updated_at timestamptz, invalidated_at timestamptz, invalid_reason varchar)
),
before AS (
  SELECT x.installation_id, i.id, i.platform, i.deleted_at IS NULL AS live, i.deleted_at IS NULL AND i.platform = x.platform AND NOT (i.push_token, i.web_push_subscription, i.device, i.user_id, i.permission, i.tags, i.properties, i.live_activity_start_tokens, i.widget_push_token, i.invalidated_at, i.invalid_reason) IS DISTINCT FROM (x.push_token, x.web_push_subscription, x.device, x.user_id, x.permission, x.tags, x.properties, x.live_activity_start_tokens, COALESCE(x.widget_push_token, i.widget_push_token), CASE WHEN x.invalidated_at IS NOT NULL OR (i.push_token IS DISTINCT FROM x.push_token OR i.web_push_subscription IS DISTINCT FROM x.web_push_subscription) THEN x.invalidated_at ELSE i.invalidated_at END, CASE WHEN x.invalidated_at IS NOT NULL OR (i.push_token IS DISTINCT FROM x.push_token OR i.web_push_subscription IS DISTINCT FROM x.web_push_subscription) THEN x.invalid_reason ELSE i.invalid_reason END) AS same
  FROM input x CROSS JOIN LATERAL (
    SELECT id, platform, deleted_at, push_token, web_push_subscription, device, user_id, permission, tags, properties,
      live_activity_start_tokens, widget_push_token, invalidated_at, invalid_reason
    FROM installations WHERE app_id = $1 AND installation_id = x.installation_id LIMIT 1) i
),
written AS (
  INSERT INTO installations AS i (app_id, installation_id, platform, push_token, web_push_subscription, device, user_id, permission,
    registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, tags, properties,
    live_activity_start_tokens, widget_push_token)
  SELECT $1, r.installation_id, r.platform, r.push_token, r.web_push_subscription, r.device, r.user_id, r.permission,
    COALESCE(r.registered_at, now()), COALESCE(r.last_seen_at, r.registered_at, now()),
    COALESCE(r.identifier_updated_at, CASE WHEN r.user_id IS NOT NULL THEN COALESCE(r.registered_at, now()) END),
    COALESCE(r.permission_updated_at, CASE WHEN r.given_permission IS NOT NULL THEN COALESCE(r.registered_at, now()) END),
    r.invalidated_at, r.invalid_reason, r.tags, r.properties, r.live_activity_start_tokens, r.widget_push_token
  FROM input r
  WHERE NOT EXISTS (SELECT 1 FROM before b WHERE b.installation_id = r.installation_id AND b.live AND (b.same OR b.platform <> r.platform))
  ON CONFLICT (app_id, installation_id) DO UPDATE SET
    platform = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.platform ELSE i.platform END,
    push_token = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.push_token ELSE EXCLUDED.push_token END,
    web_push_subscription = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.web_push_subscription ELSE EXCLUDED.web_push_subscription END,
    device = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.device ELSE EXCLUDED.device END,
    user_id = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.user_id ELSE EXCLUDED.user_id END,
    permission = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.permission ELSE EXCLUDED.permission END,
    tags = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.tags ELSE EXCLUDED.tags END,
    properties = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.properties ELSE EXCLUDED.properties END,
    live_activity_start_tokens = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.live_activity_start_tokens ELSE EXCLUDED.live_activity_start_tokens END,
    widget_push_token = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.widget_push_token ELSE COALESCE(EXCLUDED.widget_push_token, i.widget_push_token) END,
    invalidated_at = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.invalidated_at ELSE CASE WHEN EXCLUDED.invalidated_at IS NOT NULL OR (i.push_token IS DISTINCT FROM EXCLUDED.push_token OR i.web_push_subscription IS DISTINCT FROM EXCLUDED.web_push_subscription) THEN EXCLUDED.invalidated_at ELSE i.invalidated_at END END,
    invalid_reason = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.invalid_reason ELSE CASE WHEN EXCLUDED.invalidated_at IS NOT NULL OR (i.push_token IS DISTINCT FROM EXCLUDED.push_token OR i.web_push_subscription IS DISTINCT FROM EXCLUDED.web_push_subscription) THEN EXCLUDED.invalid_reason ELSE i.invalid_reason END END,
    registered_at = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.registered_at ELSE LEAST(i.registered_at, EXCLUDED.registered_at) END,
    last_seen_at = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.last_seen_at ELSE GREATEST(i.last_seen_at, EXCLUDED.last_seen_at) END,
    identifier_updated_at = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.identifier_updated_at ELSE CASE WHEN i.user_id IS DISTINCT FROM EXCLUDED.user_id THEN EXCLUDED.identifier_updated_at ELSE i.identifier_updated_at END END,
    permission_updated_at = CASE WHEN i.deleted_at IS NOT NULL THEN EXCLUDED.permission_updated_at ELSE CASE WHEN i.permission IS DISTINCT FROM EXCLUDED.permission THEN EXCLUDED.permission_updated_at ELSE i.permission_updated_at END END,
    deleted_at = NULL
  WHERE i.deleted_at IS NOT NULL OR (i.platform = EXCLUDED.platform AND (i.push_token, i.web_push_subscription, i.device, i.user_id, i.permission, i.tags, i.properties, i.live_activity_start_tokens, i.widget_push_token, i.invalidated_at, i.invalid_reason) IS DISTINCT FROM (EXCLUDED.push_token, EXCLUDED.web_push_subscription, EXCLUDED.device, EXCLUDED.user_id, EXCLUDED.permission, EXCLUDED.tags, EXCLUDED.properties, EXCLUDED.live_activity_start_tokens, COALESCE(EXCLUDED.widget_push_token, i.widget_push_token), CASE WHEN EXCLUDED.invalidated_at IS NOT NULL OR (i.push_token IS DISTINCT FROM EXCLUDED.push_token OR i.web_push_subscription IS DISTINCT FROM EXCLUDED.web_push_subscription) THEN EXCLUDED.invalidated_at ELSE i.invalidated_at END, CASE WHEN EXCLUDED.invalidated_at IS NOT NULL OR (i.push_token IS DISTINCT FROM EXCLUDED.push_token OR i.web_push_subscription IS DISTINCT FROM EXCLUDED.web_push_subscription) THEN EXCLUDED.invalid_reason ELSE i.invalid_reason END))
  RETURNING i.id, i.installation_id
),
targets AS (
  SELECT id, installation_id FROM written
  UNION ALL
  SELECT b.id, b.installation_id FROM before b JOIN input x USING (installation_id)
  WHERE b.live AND b.platform = x.platform AND NOT EXISTS (SELECT 1 FROM written w WHERE w.installation_id = b.installation_id)
),
badged AS (
  INSERT INTO installation_badges AS b (installation_id, badge)
  SELECT t.id, r.badge FROM input r JOIN targets t USING (installation_id)
  WHERE r.badge IS NOT NULL AND r.badge <> COALESCE((SELECT s.badge FROM installation_badges s WHERE s.installation_id = t.id), 0)
  ON CONFLICT (installation_id) DO UPDATE SET badge = EXCLUDED.badge
  RETURNING b.installation_id AS id
),
badged_ids AS (SELECT t.installation_id FROM badged bd JOIN targets t ON t.id = bd.id)
SELECT r.line,
  CASE WHEN bf.live AND bf.platform <> r.platform THEN 'platform_differs'
    WHEN w.installation_id IS NOT NULL AND (bf.installation_id IS NULL OR NOT bf.live) THEN 'created'
    WHEN w.installation_id IS NOT NULL OR bd.installation_id IS NOT NULL THEN 'updated'
    ELSE 'unchanged' END AS outcome,
  CASE WHEN bf.live AND bf.platform <> r.platform THEN bf.platform END AS stored_platform
FROM input r LEFT JOIN before bf USING (installation_id) LEFT JOIN written w USING (installation_id) LEFT JOIN badged_ids bd USING (installation_id)
ORDER BY r.line;

-- TransferRepository.exportPage
SELECT i.installation_id, i.platform, i.push_token, i.web_push_subscription, i.widget_push_token, i.device, i.user_id, i.permission, i.tags, i.properties,
  COALESCE((SELECT b.badge FROM installation_badges b WHERE b.installation_id = i.id), 0) AS badge, i.live_activity_start_tokens,
  i.registered_at, i.last_seen_at, i.identifier_updated_at, i.permission_updated_at, i.invalidated_at, i.invalid_reason
FROM installations i WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.installation_id > $2
ORDER BY i.installation_id LIMIT $3;
