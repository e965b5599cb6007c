-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the calls in src/queries/sql-cases.ts; do not edit.

-- NotificationsRepository.insert
INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users,
       recipient_kind, installation_ids, tags, send_at, localizations, recipient_filter)
     VALUES ($1::uuid, $2::uuid, $3::text, $4::text, $5::text, $6::text, $7::jsonb, $8::jsonb, $9::text[], $10::int, $11::text, $12::text[], $13::text[], $14::timestamptz, $15::json, $16::jsonb)
     RETURNING id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
created_at, processing_started_at, completed_at, send_at, canceled_at, localizations, fanned_out_at, recipient_kind, tags;

-- NotificationsRepository.insert, with a small send
WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN $7::boolean THEN $20::text
      WHEN NOT (i.platform = ANY($4::text[])) THEN $21::text
      WHEN i.platform = ANY($11::text[]) THEN $22::text
      WHEN NOT (i.platform = ANY($5::text[])) THEN $23::text
      WHEN i.permission = $32::text THEN $24::text
      WHEN i.invalidated_at IS NOT NULL THEN $25::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN $26::text
      WHEN $12::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => $13::int) LIMIT $12::int) r) >= $12::int THEN $27::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.user_id = ANY($33::text[])
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN $10::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, $15::boolean) THEN $28::text END) AS skip_reason
  FROM chosen c LEFT JOIN unnest($8::text[], $9::timestamptz[], $14::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due ORDER BY t.platform, t.id) - 1) / $3 END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due
),
group_offsets AS (
  SELECT due, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch,
    CASE WHEN $16::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, now() + make_interval(secs => b.batch * $16::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due,
    LATERAL (SELECT COALESCE($6 + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at)
  SELECT $2, n.id, now(), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN $29::text WHEN n.due > now() THEN $30::text ELSE $31::text END,
    n.skip_reason, n.due, CASE WHEN n.skip_reason IS NULL AND n.due > now() THEN n.due END
  FROM placed n
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT $2::uuid, status FROM inserted WHERE status = $29::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM chosen)::int AS found,
    (SELECT max(installation_id) FROM chosen) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = $29::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used
),
stored AS (
  INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users,
       recipient_kind, installation_ids, tags, send_at, localizations, recipient_filter, processing_started_at, fanout_position, fanout_batches, fanout_cursor, stat_users, stat_installations, stat_skipped)
  SELECT $34::uuid, $35::uuid, $36::text, $37::text, $38::text, $39::text, $40::jsonb, $41::jsonb, $42::text[], $43::int, $44::text, $45::text[], $46::text[], $47::timestamptz, $48::json, $49::jsonb, now(), $17::int, c.batches_used, CASE WHEN $18::boolean THEN c.last_installation_id END,
    CASE WHEN $19::boolean THEN c.users ELSE 0 END, c.installations, c.skipped
  FROM counts c
  RETURNING id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
created_at, processing_started_at, completed_at, send_at, canceled_at, localizations, fanned_out_at, recipient_kind, tags
)
SELECT c.*, stored.*,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = $29::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted WHERE status <> $29::text GROUP BY batch) b) AS batches
FROM counts c, stored;

-- NotificationsRepository.insert, under a key
WITH linked AS (
  UPDATE idempotency_keys SET notification_id = $17::uuid WHERE app_id = $18::uuid AND key = $19::text
)
INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users,
       recipient_kind, installation_ids, tags, send_at, localizations, recipient_filter)
     VALUES ($1::uuid, $2::uuid, $3::text, $4::text, $5::text, $6::text, $7::jsonb, $8::jsonb, $9::text[], $10::int, $11::text, $12::text[], $13::text[], $14::timestamptz, $15::json, $16::jsonb)
     RETURNING id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
created_at, processing_started_at, completed_at, send_at, canceled_at, localizations, fanned_out_at, recipient_kind, tags;

-- NotificationsRepository.insert, with a small send, under a key
WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN $7::boolean THEN $20::text
      WHEN NOT (i.platform = ANY($4::text[])) THEN $21::text
      WHEN i.platform = ANY($11::text[]) THEN $22::text
      WHEN NOT (i.platform = ANY($5::text[])) THEN $23::text
      WHEN i.permission = $32::text THEN $24::text
      WHEN i.invalidated_at IS NOT NULL THEN $25::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN $26::text
      WHEN $12::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => $13::int) LIMIT $12::int) r) >= $12::int THEN $27::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.user_id = ANY($33::text[])
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN $10::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, $15::boolean) THEN $28::text END) AS skip_reason
  FROM chosen c LEFT JOIN unnest($8::text[], $9::timestamptz[], $14::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due ORDER BY t.platform, t.id) - 1) / $3 END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due
),
group_offsets AS (
  SELECT due, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch,
    CASE WHEN $16::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, now() + make_interval(secs => b.batch * $16::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due,
    LATERAL (SELECT COALESCE($6 + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at)
  SELECT $2, n.id, now(), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN $29::text WHEN n.due > now() THEN $30::text ELSE $31::text END,
    n.skip_reason, n.due, CASE WHEN n.skip_reason IS NULL AND n.due > now() THEN n.due END
  FROM placed n
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT $2::uuid, status FROM inserted WHERE status = $29::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM chosen)::int AS found,
    (SELECT max(installation_id) FROM chosen) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = $29::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used
),
stored AS (
  INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users,
       recipient_kind, installation_ids, tags, send_at, localizations, recipient_filter, processing_started_at, fanout_position, fanout_batches, fanout_cursor, stat_users, stat_installations, stat_skipped)
  SELECT $34::uuid, $35::uuid, $36::text, $37::text, $38::text, $39::text, $40::jsonb, $41::jsonb, $42::text[], $43::int, $44::text, $45::text[], $46::text[], $47::timestamptz, $48::json, $49::jsonb, now(), $17::int, c.batches_used, CASE WHEN $18::boolean THEN c.last_installation_id END,
    CASE WHEN $19::boolean THEN c.users ELSE 0 END, c.installations, c.skipped
  FROM counts c
  RETURNING id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
created_at, processing_started_at, completed_at, send_at, canceled_at, localizations, fanned_out_at, recipient_kind, tags
),
linked AS (
  UPDATE idempotency_keys SET notification_id = $50::uuid WHERE app_id = $51::uuid AND key = $52::text
)
SELECT c.*, stored.*,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = $29::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted WHERE status <> $29::text GROUP BY batch) b) AS batches
FROM counts c, stored;

-- NotificationsRepository.completeIdempotencyKey
UPDATE idempotency_keys SET status = 'completed', response_status = $3, response_body = $4
WHERE app_id = $1 AND key = $2 AND status = 'in_progress' AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL;

-- NotificationsRepository.find
SELECT id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
created_at, processing_started_at, completed_at, send_at, canceled_at, localizations, fanned_out_at, recipient_kind, tags FROM notifications WHERE app_id = $1 AND id = $2;

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
created_at, processing_started_at, completed_at, send_at, canceled_at, localizations, fanned_out_at, recipient_kind, tags FROM notifications WHERE app_id = $1 AND id = $2;

-- NotificationsRepository.list
SELECT id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
created_at, processing_started_at, completed_at, send_at, canceled_at, localizations, fanned_out_at, recipient_kind, tags, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_at_micros FROM notifications
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
n.created_at, n.processing_started_at, n.completed_at, n.send_at, n.canceled_at, n.localizations, n.fanned_out_at, n.recipient_kind, n.tags, d.status AS delivery_status, d.reason AS delivery_reason,
            d.updated_at AS delivery_updated_at
     FROM (SELECT * FROM notifications WHERE app_id = $1 ORDER BY created_at DESC, id DESC LIMIT $3) n
     JOIN deliveries d ON d.notification_id = n.id AND d.installation_id = $2 AND d.notification_started_at = n.processing_started_at
     ORDER BY n.created_at DESC, n.id DESC;

-- NotificationsRepository.claimIdempotencyKey
INSERT INTO idempotency_keys AS k (app_id, key, request_hash, status, locked_until, expires_at)
SELECT $1::uuid, $2::text, $3::text, 'in_progress', now() + make_interval(secs => $4::float8), now() + make_interval(hours => $5::int)
WHERE (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL
ON CONFLICT (app_id, key) DO UPDATE SET
  request_hash = EXCLUDED.request_hash, status = 'in_progress', response_status = NULL, response_body = NULL, notification_id = NULL,
  locked_until = EXCLUDED.locked_until, created_at = now(), expires_at = EXCLUDED.expires_at
WHERE k.expires_at <= now()
   OR (k.status = 'in_progress' AND k.locked_until <= now() AND k.request_hash = EXCLUDED.request_hash AND k.notification_id IS NULL)
RETURNING key;

-- NotificationsRepository.findIdempotencyKey
SELECT request_hash, status, response_status, response_body, notification_id, locked_until <= now() AS lock_expired
FROM idempotency_keys WHERE app_id = $1 AND key = $2;

-- NotificationsRepository.releaseIdempotencyKey
DELETE FROM idempotency_keys WHERE app_id = $1 AND key = $2 AND status = 'in_progress' AND notification_id IS NULL;

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
