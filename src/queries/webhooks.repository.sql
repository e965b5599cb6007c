-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/webhooks/webhooks.repository.ts; do not edit.

-- WebhooksRepository.insert
INSERT INTO webhooks (id, app_id, url, events, secret_enc)
SELECT $1, a.id, $3, $4::text[], $5 FROM apps a WHERE a.id = $2
RETURNING id, app_id, url, events, created_at;

-- WebhooksRepository.list
SELECT id, app_id, url, events, created_at FROM webhooks WHERE app_id = $1 ORDER BY created_at, id;

-- WebhooksRepository.delete
DELETE FROM webhooks WHERE id = $1 RETURNING id, app_id, url, events, created_at;

-- WebhooksRepository.resealAll
SELECT id, secret_enc FROM webhooks ORDER BY id FOR UPDATE;

UPDATE webhooks SET secret_enc = $2 WHERE id = $1;

-- WebhooksRepository.dispatchDue
UPDATE webhook_messages m SET due_at = now() + make_interval(secs => $2)
WHERE m.id IN (
  SELECT id FROM webhook_messages WHERE status = 'pending' AND due_at <= now() ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
RETURNING m.id, m.attempts;

-- WebhooksRepository.startAttempt
UPDATE webhook_messages m SET attempts = m.attempts + 1, due_at = now() + make_interval(secs => $2)
FROM webhooks w
WHERE m.id = $1 AND m.status = 'pending' AND w.id = m.webhook_id
RETURNING m.id, m.type, m.subject_id, m.created_at, m.body, m.attempts, w.id AS webhook_id, w.url, w.secret_enc;

-- WebhooksRepository.keepBody
UPDATE webhook_messages SET body = coalesce(body, $2) WHERE id = $1 RETURNING body;

-- WebhooksRepository.notification
SELECT id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
stat_inbox_stored, stat_inbox_read, created_at, processing_started_at, completed_at, send_at, canceled_at, failure_reason, localizations, fanned_out_at, fanout_audience, recipient_kind, tags, template, variables,
variants, ab_phase, ab_due_at, ab_winner, ab_decided_at, CASE WHEN n.variants IS NOT NULL THEN (
  SELECT COALESCE(jsonb_agg(to_jsonb(s) ORDER BY s.variant), '[]'::jsonb) FROM (
    SELECT d.variant, count(DISTINCT d.user_id)::int AS users, count(*)::int AS installations,
      count(*) FILTER (WHERE d.status = 'accepted')::int AS accepted,
      count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
      count(*) FILTER (WHERE d.status = 'skipped')::int AS skipped,
      COALESCE(sum(e.received), 0)::int AS received, COALESCE(sum(e.displayed), 0)::int AS displayed, COALESCE(sum(e.opened), 0)::int AS opened
    FROM deliveries d
    LEFT JOIN (
      SELECT installation_id, count(*) FILTER (WHERE type = 'received') AS received, count(*) FILTER (WHERE type = 'displayed') AS displayed,
        count(*) FILTER (WHERE type = 'opened') AS opened
      FROM notification_events WHERE notification_id = n.id AND notification_started_at = n.processing_started_at GROUP BY installation_id
    ) e ON e.installation_id = d.installation_id
    WHERE d.notification_id = n.id AND d.notification_started_at = n.processing_started_at AND d.variant IS NOT NULL
    GROUP BY d.variant) s
) END AS variant_statistics FROM notifications n WHERE id = $1;

-- WebhooksRepository.inboxMessage
SELECT id, notification_id, user_id, title, body, image_url, action_url, data, topic, created_at, read_at, archived_at, expires_at FROM inbox_messages WHERE id = $1;

-- WebhooksRepository.installation
SELECT id, app_id, installation_id, platform, push_token, web_push_subscription, device, user_id,
permission, registered_at, last_seen_at, identifier_updated_at, permission_updated_at, invalidated_at, invalid_reason, deleted_at, tags,
COALESCE((SELECT b.badge FROM installation_badges b WHERE b.installation_id = installations.id), 0) AS badge FROM installations WHERE id = $1;

-- WebhooksRepository.troubles
SELECT (SELECT count(*) FROM webhook_messages WHERE status <> 'pending' AND status = $2::text AND finished_at >= $1 )::int AS failed,
(SELECT count(*) FROM webhook_messages WHERE status = 'pending' AND last_error IS NOT NULL )::int AS retrying;

SELECT m.id, w.app_id, w.url, m.type, m.subject_id, m.status, m.attempts, m.last_error, m.created_at, m.finished_at
FROM (
  (SELECT * FROM webhook_messages WHERE status <> 'pending' AND status = $3::text AND finished_at >= $1  ORDER BY finished_at DESC LIMIT $2)
  UNION ALL
  (SELECT * FROM webhook_messages WHERE status = 'pending' AND last_error IS NOT NULL  ORDER BY due_at DESC LIMIT $2)
) m JOIN webhooks w ON w.id = m.webhook_id
ORDER BY coalesce(m.finished_at, m.created_at) DESC
LIMIT $2;

-- WebhooksRepository.troublesOf
SELECT (SELECT count(*) FROM webhook_messages WHERE status <> 'pending' AND status = $2::text AND finished_at >= $1 AND webhook_id IN (SELECT id FROM webhooks WHERE app_id = ANY($3::uuid[])))::int AS failed,
(SELECT count(*) FROM webhook_messages WHERE status = 'pending' AND last_error IS NOT NULL AND webhook_id IN (SELECT id FROM webhooks WHERE app_id = ANY($3::uuid[])))::int AS retrying;

SELECT m.id, w.app_id, w.url, m.type, m.subject_id, m.status, m.attempts, m.last_error, m.created_at, m.finished_at
FROM (
  (SELECT * FROM webhook_messages WHERE status <> 'pending' AND status = $3::text AND finished_at >= $1 AND webhook_id IN (SELECT id FROM webhooks WHERE app_id = ANY($4::uuid[])) ORDER BY finished_at DESC LIMIT $2)
  UNION ALL
  (SELECT * FROM webhook_messages WHERE status = 'pending' AND last_error IS NOT NULL AND webhook_id IN (SELECT id FROM webhooks WHERE app_id = ANY($4::uuid[])) ORDER BY due_at DESC LIMIT $2)
) m JOIN webhooks w ON w.id = m.webhook_id
ORDER BY coalesce(m.finished_at, m.created_at) DESC
LIMIT $2;

-- WebhooksRepository.delivered
UPDATE webhook_messages SET status = $2::text, finished_at = now(), last_error = NULL WHERE id = $1;

-- WebhooksRepository.failed
UPDATE webhook_messages SET status = $3::text, finished_at = now(), last_error = $2 WHERE id = $1;

-- WebhooksRepository.retryLater
UPDATE webhook_messages SET last_error = $2, due_at = now() + make_interval(secs => $3 / 1000.0) WHERE id = $1 AND status = 'pending';
