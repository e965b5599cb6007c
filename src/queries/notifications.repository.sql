-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/notifications/notifications.repository.ts; do not edit.

-- NotificationsRepository.insert
INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users,
       recipient_kind, installation_ids, tags, send_at, localizations, recipient_filter, template, variables, variants, ab_phase)
     VALUES (:id::uuid, :app_id::uuid, :title::text, :body::text, :image_url::text, :action_url::text, :data::jsonb, :options::jsonb,
       :user_ids::text[], :target_users::int, :recipient_kind::text, :installation_ids::text[], :tags::text[], :send_at::timestamptz,
       :localizations::json, :recipient_filter::jsonb, :template::jsonb, :variables::jsonb, :variants::jsonb, :ab_phase::text)
     RETURNING id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
stat_inbox_stored, stat_inbox_read, created_at, processing_started_at, completed_at, send_at, canceled_at, failure_reason, localizations, fanned_out_at, fanout_audience, recipient_kind, tags, template, variables,
variants, ab_phase, ab_due_at, ab_winner, ab_decided_at;

-- NotificationsRepository.insert (under a key)
WITH linked AS (
  UPDATE idempotency_keys SET notification_id = :id::uuid WHERE app_id = :app_id::uuid AND key = :idempotency_key::text
)
INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users,
       recipient_kind, installation_ids, tags, send_at, localizations, recipient_filter, template, variables, variants, ab_phase)
     VALUES (:id::uuid, :app_id::uuid, :title::text, :body::text, :image_url::text, :action_url::text, :data::jsonb, :options::jsonb,
       :user_ids::text[], :target_users::int, :recipient_kind::text, :installation_ids::text[], :tags::text[], :send_at::timestamptz,
       :localizations::json, :recipient_filter::jsonb, :template::jsonb, :variables::jsonb, :variants::jsonb, :ab_phase::text)
     RETURNING id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
stat_inbox_stored, stat_inbox_read, created_at, processing_started_at, completed_at, send_at, canceled_at, failure_reason, localizations, fanned_out_at, fanout_audience, recipient_kind, tags, template, variables,
variants, ab_phase, ab_due_at, ab_winner, ab_decided_at;

-- NotificationsRepository.find
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
) END AS variant_statistics FROM notifications n WHERE app_id = $1 AND id = $2;

-- NotificationsRepository.cancel
WITH marked AS (
       UPDATE notifications SET canceled_at = now()
       WHERE id = $1 AND app_id = $2 AND completed_at IS NULL AND canceled_at IS NULL RETURNING app_id, id
     ), canceled_events AS (
       INSERT INTO webhook_messages (webhook_id, type, subject_id)
SELECT w.id, 'notification.canceled', s.subject_id FROM (SELECT app_id, id FROM marked) AS s(app_id, subject_id)
JOIN webhooks w ON w.app_id = s.app_id AND 'notification.canceled' = ANY (w.events)
     )
     SELECT id FROM marked;

WITH canceled AS (
  UPDATE deliveries d SET status = $4::text, reason = $5::text, next_attempt_at = NULL, updated_at = now()
  WHERE d.notification_id = $1
    AND d.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = $1)
    AND ($2::int IS NULL OR d.batch = $2::int) AND d.status = ANY($3::text[])
    AND EXISTS (SELECT 1 FROM notifications n WHERE n.id = $1 AND n.canceled_at IS NOT NULL)
  RETURNING d.notification_id, d.installation_id, d.status
), receipts AS (
  DELETE FROM marketing_receipts m USING canceled c
  WHERE m.installation_id = c.installation_id AND m.notification_id = c.notification_id
    AND (SELECT n.options ->> 'category' FROM notifications n WHERE n.id = $1) = 'marketing'
), per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT notification_id, status FROM canceled) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
), counted AS (SELECT count(*)::int AS n FROM canceled), finished AS (
  UPDATE notifications SET stat_skipped = stat_skipped + counted.n,
    completed_at = CASE WHEN completed_at IS NULL AND fanned_out_at IS NOT NULL AND stat_accepted + stat_failed + stat_skipped + counted.n >= stat_installations THEN now() ELSE completed_at END
  FROM counted
  WHERE id = $1 AND (counted.n > 0 OR $2::int IS NULL)
  RETURNING id, app_id, completed_at = now() AS completed
), completed_events AS (
  INSERT INTO webhook_messages (webhook_id, type, subject_id)
  SELECT w.id, 'notification.completed', s.subject_id FROM (SELECT app_id, id FROM finished WHERE completed) AS s(app_id, subject_id)
  JOIN webhooks w ON w.app_id = s.app_id AND 'notification.completed' = ANY (w.events)
)
SELECT id, completed FROM finished;

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
) END AS variant_statistics FROM notifications n WHERE app_id = $1 AND id = $2;

-- NotificationsRepository.list
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
) END AS variant_statistics, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_at_micros FROM notifications n
     WHERE app_id = $1 AND ($2::bigint IS NULL OR (created_at, id) < ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::uuid))
       AND ($5::text IS NULL OR strpos(lower(title), lower($5::text)) > 0)
       AND ($6::timestamptz IS NULL OR created_at < $6::timestamptz)
     ORDER BY created_at DESC, id DESC
     LIMIT $4;

-- NotificationsRepository.countSince
SELECT app_id, count(*)::int AS count FROM notifications WHERE created_at >= $1 GROUP BY app_id;

-- NotificationsRepository.lastForInstallation
SELECT n.id, n.app_id, n.title, n.body, n.image_url, n.action_url, n.data, n.options, n.target_users,
n.stat_users, n.stat_installations, n.stat_accepted, n.stat_received, n.stat_displayed, n.stat_opened, n.stat_failed, n.stat_skipped,
n.stat_inbox_stored, n.stat_inbox_read, n.created_at, n.processing_started_at, n.completed_at, n.send_at, n.canceled_at, n.failure_reason, n.localizations, n.fanned_out_at, n.fanout_audience, n.recipient_kind, n.tags, n.template, n.variables,
n.variants, n.ab_phase, n.ab_due_at, n.ab_winner, n.ab_decided_at, d.status AS delivery_status, d.reason AS delivery_reason,
            d.updated_at AS delivery_updated_at
     FROM (SELECT * FROM notifications WHERE app_id = $1 ORDER BY created_at DESC, id DESC LIMIT $3) n
     JOIN deliveries d ON d.notification_id = n.id AND d.installation_id = $2 AND d.notification_started_at = n.processing_started_at
     ORDER BY n.created_at DESC, n.id DESC;

-- NotificationsRepository.recordEvent (opened)
WITH notification AS (
  SELECT id, processing_started_at FROM notifications WHERE id = $1 AND app_id = $2
), target AS (
  SELECT d.installation_id, d.notification_started_at, d.status, d.reason,
         d.status = ANY($6::text[]) OR (d.status = $7::text AND d.attempts > 0) AS eligible
  FROM deliveries d
  JOIN installations i ON i.id = d.installation_id
  WHERE d.notification_id = (SELECT id FROM notification)
    AND d.notification_started_at = (SELECT processing_started_at FROM notification)
    AND i.app_id = $2 AND i.installation_id = $3
), inserted AS (
  INSERT INTO notification_events (notification_id, installation_id, type, notification_started_at, occurred_at, action)
  SELECT $1, installation_id, $4, notification_started_at, $5, $8::varchar FROM target WHERE eligible
  ON CONFLICT DO NOTHING
  RETURNING 1
), counted AS (
  UPDATE notifications SET stat_opened = stat_opened + (SELECT count(*) FROM inserted)
  WHERE id = $1 AND EXISTS (SELECT 1 FROM inserted)
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM notification) AS found, EXISTS (SELECT 1 FROM target) AS targeted,
       EXISTS (SELECT 1 FROM target WHERE eligible) AS eligible,
       (SELECT status FROM target) AS status, (SELECT reason FROM target) AS reason,
       EXISTS (SELECT 1 FROM counted) AS counted;
