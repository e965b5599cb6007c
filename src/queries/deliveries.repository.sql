-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/deliver/deliveries.repository.ts; do not edit.

-- DeliveriesRepository.claim
WITH claimed AS (
  UPDATE deliveries d SET status = :sending::text, attempts = d.attempts + 1, updated_at = now()
  FROM installations i
  WHERE (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL
    AND d.notification_id = :notification_id AND d.notification_started_at >= :started_from AND d.notification_started_at < :started_to
    AND d.batch = :batch AND i.id = d.installation_id
    AND (d.status = ANY(:still_to_send::text[]) OR (:reclaim::boolean AND d.status = :sending::text))
    AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '1 second')
    AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.id = :notification_id AND n.canceled_at IS NOT NULL)
  RETURNING d.installation_id, d.attempts, i.platform, i.push_token, i.web_push_subscription, i.deleted_at, i.invalidated_at,
    i.device ->> 'locale' AS locale, i.live_activity_start_tokens ->> :start_type::text AS start_token,
    CASE WHEN :widgets::boolean THEN i.widget_push_token END AS widget_token, d.variant,
    CASE WHEN :personalize::boolean THEN jsonb_build_object('user_id', i.user_id, 'app_version', i.device ->> 'app_version', 'properties', i.properties) END
      AS personal
), badged AS (
  INSERT INTO installation_badges AS b (installation_id, badge)
  SELECT installation_id, COALESCE(:badge_set::int, LEAST(:max_badge::int, GREATEST(0, :badge_add::int))) FROM claimed c
  WHERE (:badge_set::int IS NOT NULL OR :badge_add::int <> 0) AND c.platform = :ios::text AND c.deleted_at IS NULL AND c.invalidated_at IS NULL
    AND (:badge_set::int IS NOT NULL OR c.attempts = 1)
  ORDER BY installation_id
  ON CONFLICT (installation_id) DO UPDATE SET badge = COALESCE(:badge_set::int, LEAST(:max_badge::int, GREATEST(0, b.badge + :badge_add::int)))
  RETURNING b.installation_id, b.badge
)
SELECT c.installation_id, c.attempts, c.platform, c.push_token, c.web_push_subscription, c.deleted_at, c.invalidated_at, c.locale,
  CASE WHEN c.platform = :ios::text AND (:badge_set::int IS NOT NULL OR :badge_add::int <> 0) THEN COALESCE(
    ((SELECT jsonb_object_agg(n.installation_id, n.badge) FROM badged n) ->> c.installation_id::text)::int,
    (SELECT k.badge FROM installation_badges k WHERE k.installation_id = c.installation_id), 0) END AS badge, c.start_token, c.widget_token, c.personal,
  c.variant
FROM claimed c;

-- DeliveriesRepository.recordOutcomes
WITH outcome AS (
  SELECT * FROM unnest(:notification_ids::uuid[], :installation_ids::uuid[], :statuses::text[], :reasons::text[], :next_attempts::timestamptz[],
      :provider_message_ids::text[])
    AS o(notification_id, installation_id, status, reason, next_attempt_at, provider_message_id)
  WHERE (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL
), recorded AS (
  UPDATE deliveries d SET status = o.status, reason = o.reason, next_attempt_at = o.next_attempt_at, provider_message_id = o.provider_message_id,
    updated_at = now()
  FROM outcome o
  WHERE d.notification_id = o.notification_id AND d.installation_id = o.installation_id
    AND d.notification_started_at >= :started_from AND d.notification_started_at < :started_to
    AND CASE d.status WHEN :sending::text THEN true ELSE false END
  RETURNING d.notification_id, d.installation_id, d.status
), receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), notification_id FROM recorded r WHERE status = :accepted::text AND notification_id = ANY(:marketing_ids::uuid[])
    AND NOT EXISTS (SELECT 1 FROM marketing_receipts m WHERE m.installation_id = r.installation_id AND m.notification_id = r.notification_id)
  ON CONFLICT DO NOTHING
), unclaimed AS (
  DELETE FROM marketing_receipts m USING recorded r
  WHERE r.notification_id = ANY(:marketing_ids::uuid[]) AND r.status IN (:failed::text, :skipped::text)
    AND m.installation_id = r.installation_id AND m.notification_id = r.notification_id
), per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT notification_id, status FROM recorded) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
), invalidated AS (
  UPDATE installations i SET invalidated_at = now(), invalid_reason = u.reason
  FROM unnest(:invalid_ids::uuid[], :invalid_reasons::text[], :invalid_tokens::text[]) AS u(id, reason, token)
  WHERE i.id = u.id AND i.invalidated_at IS NULL
    AND (i.push_token = u.token OR i.web_push_subscription ->> 'endpoint' = u.token)
  RETURNING i.app_id, i.id
), invalidated_events AS (
  INSERT INTO webhook_messages (webhook_id, type, subject_id)
  SELECT w.id, 'installation.invalidated', s.subject_id FROM (SELECT app_id, id FROM invalidated) AS s(app_id, subject_id)
  JOIN webhooks w ON w.app_id = s.app_id AND 'installation.invalidated' = ANY (w.events)
), counted AS (
  SELECT notification_id,
         count(*) FILTER (WHERE status = :accepted::text)::int AS accepted,
         count(*) FILTER (WHERE status = :failed::text)::int AS failed,
         count(*) FILTER (WHERE status = :skipped::text)::int AS skipped
  FROM recorded GROUP BY notification_id
), finished AS (
  UPDATE notifications n SET
    stat_accepted = stat_accepted + c.accepted, stat_failed = stat_failed + c.failed, stat_skipped = stat_skipped + c.skipped,
    completed_at = CASE
      WHEN completed_at IS NULL AND fanned_out_at IS NOT NULL AND stat_accepted + stat_failed + stat_skipped + c.accepted + c.failed + c.skipped >= stat_installations THEN now()
      ELSE completed_at END
  FROM counted c
  WHERE n.id = c.notification_id AND c.accepted + c.failed + c.skipped > 0
  RETURNING n.id, n.app_id, n.completed_at = now() AS completed
), completed_events AS (
  INSERT INTO webhook_messages (webhook_id, type, subject_id)
  SELECT w.id, 'notification.completed', s.subject_id FROM (SELECT app_id, id FROM finished WHERE completed) AS s(app_id, subject_id)
  JOIN webhooks w ON w.app_id = s.app_id AND 'notification.completed' = ANY (w.events)
)
SELECT id, completed FROM finished;

-- DeliveriesRepository.content
SELECT id, app_id, processing_started_at, title, body, image_url, action_url, data, options, localizations, template, variables, variants
FROM notifications WHERE id = $1;

-- DeliveriesRepository.pendingBatches
SELECT batch, max(next_attempt_at) AS due FROM deliveries d
WHERE d.notification_id = $1 AND d.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = $1) AND d.status = ANY($2::text[])
  AND d.next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch;

-- DeliveriesRepository.cancelLeftovers
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

-- DeliveriesRepository.completeIfDone
WITH finished AS (
     UPDATE notifications SET completed_at = now()
     WHERE id = $1 AND completed_at IS NULL AND fanned_out_at IS NOT NULL AND stat_accepted + stat_failed + stat_skipped >= stat_installations
     RETURNING id, app_id
   ), completed_events AS (
     INSERT INTO webhook_messages (webhook_id, type, subject_id)
SELECT w.id, 'notification.completed', s.subject_id FROM (SELECT app_id, id FROM finished) AS s(app_id, subject_id)
JOIN webhooks w ON w.app_id = s.app_id AND 'notification.completed' = ANY (w.events)
   )
   SELECT id FROM finished;

-- DeliveriesRepository.completeFinished
WITH finished AS (
     UPDATE notifications SET completed_at = now()
     WHERE  completed_at IS NULL AND fanned_out_at IS NOT NULL AND stat_accepted + stat_failed + stat_skipped >= stat_installations
     RETURNING id, app_id
   ), completed_events AS (
     INSERT INTO webhook_messages (webhook_id, type, subject_id)
SELECT w.id, 'notification.completed', s.subject_id FROM (SELECT app_id, id FROM finished) AS s(app_id, subject_id)
JOIN webhooks w ON w.app_id = s.app_id AND 'notification.completed' = ANY (w.events)
   )
   SELECT id FROM finished;
