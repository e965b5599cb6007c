-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/fan-out/fan-out.repository.ts; do not edit.

-- FanOutRepository.start
UPDATE notifications n SET processing_started_at = COALESCE(n.processing_started_at, now())
FROM apps a
WHERE n.id = $1 AND a.id = n.app_id
  AND (n.send_at IS NULL OR n.send_at <= now() OR n.canceled_at IS NOT NULL OR n.processing_started_at IS NOT NULL)
RETURNING n.app_id, n.options, n.title IS NULL AS silent, n.fanout_position, n.fanned_out_at, n.send_at, n.processing_started_at, GREATEST(n.created_at, n.send_at) AS reference_at,
  n.variants, n.ab_phase, n.ab_due_at,
  a.frequency_cap_max, a.frequency_cap_hours, a.quiet_hours_start, a.quiet_hours_end;

SELECT send_at FROM notifications WHERE id = $1;

-- FanOutRepository.nextChunk (user_ids)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

UPDATE notifications n SET fanout_audience = (SELECT count(*) FROM installations i WHERE i.app_id = n.app_id AND i.deleted_at IS NULL AND i.user_id = ANY(n.user_ids::text[]))::int WHERE n.id = $1;

SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.user_id = ANY(:ids::text[])) z
WHERE zone IS NOT NULL;

SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text));

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN :is_canceled::boolean THEN :reason_canceled::text
      WHEN :topic::text IS NOT NULL AND NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)) THEN :reason_unsubscribed::text
      WHEN :is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.push = false) THEN :reason_push_disabled::text
      WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
      WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
      WHEN NOT ((CASE WHEN i.platform = 'android' AND i.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE CASE i.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'web_push' WHEN 'huawei' THEN 'hms' END END) = ANY(:configured::text[])) THEN :reason_no_credentials::text
      WHEN i.permission = :permission_denied::text THEN :reason_permission_denied::text
      WHEN i.invalidated_at IS NOT NULL THEN :reason_invalidated::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN :reason_no_token::text
      WHEN :cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int THEN :reason_frequency_capped::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.user_id = ANY(:ids::text[])
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
    CASE WHEN :variant_total::int IS NULL THEN NULL
      ELSE width_bucket(('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 1, 8), 16, '0'))::bit(64)::bigint % :variant_total::int, :variant_thresholds::int[]) END AS variant, CASE WHEN :sample_percent::int IS NULL THEN false
      ELSE NOT (('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 9, 8), 16, '0'))::bit(64)::bigint % 100 < :sample_percent::int) END AS held
  FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
),
group_offsets AS (
  SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
    CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, (SELECT processing_started_at FROM notifications WHERE id = :notification_id) + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, (SELECT processing_started_at FROM notifications WHERE id = :notification_id), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
claimed_receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM unnest(:ids::text[]) AS i(user_id)
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
  FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id AND :inbox::boolean AND NOT :is_canceled::boolean
),
inbox_stored AS (
  INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
  SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
    COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
    now() + make_interval(days => c.inbox_days)
  FROM inbox_content c CROSS JOIN inbox_users u
  LEFT JOIN LATERAL (
    SELECT l.value AS fields
    FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
          WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
          ORDER BY i.last_seen_at DESC LIMIT 1) loc,
      json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
    WHERE lower(replace(l.key, '_', '-')) = loc.tag OR split_part(lower(replace(l.key, '_', '-')), '-', 1) = split_part(loc.tag, '-', 1)
    ORDER BY lower(replace(l.key, '_', '-')) = loc.tag DESC, lower(replace(l.key, '_', '-')) = split_part(loc.tag, '-', 1) DESC, l.ord
    LIMIT 1) v ON true
  ON CONFLICT (notification_id, user_id) DO NOTHING
  RETURNING 1
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM chosen)::int AS found,
    (SELECT max(installation_id) FROM chosen) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
    (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
),
progress AS (
  UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
    stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
    stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
    stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
    fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
  FROM counts c
  WHERE n.id = :notification_id
)
SELECT c.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c;

-- FanOutRepository.nextChunk (installation_ids)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

UPDATE notifications n SET fanout_audience = (SELECT count(*) FROM installations i WHERE i.app_id = n.app_id AND i.deleted_at IS NULL AND i.installation_id = ANY(n.installation_ids::text[]))::int WHERE n.id = $1;

SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.installation_id = ANY(:ids::text[])) z
WHERE zone IS NOT NULL;

SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text));

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN :is_canceled::boolean THEN :reason_canceled::text
      WHEN :topic::text IS NOT NULL AND NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)) THEN :reason_unsubscribed::text
      WHEN :is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.push = false) THEN :reason_push_disabled::text
      WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
      WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
      WHEN NOT ((CASE WHEN i.platform = 'android' AND i.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE CASE i.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'web_push' WHEN 'huawei' THEN 'hms' END END) = ANY(:configured::text[])) THEN :reason_no_credentials::text
      WHEN i.permission = :permission_denied::text THEN :reason_permission_denied::text
      WHEN i.invalidated_at IS NOT NULL THEN :reason_invalidated::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN :reason_no_token::text
      WHEN :cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int THEN :reason_frequency_capped::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.installation_id = ANY(:ids::text[])
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
    CASE WHEN :variant_total::int IS NULL THEN NULL
      ELSE width_bucket(('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 1, 8), 16, '0'))::bit(64)::bigint % :variant_total::int, :variant_thresholds::int[]) END AS variant, CASE WHEN :sample_percent::int IS NULL THEN false
      ELSE NOT (('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 9, 8), 16, '0'))::bit(64)::bigint % 100 < :sample_percent::int) END AS held
  FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
),
group_offsets AS (
  SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
    CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, (SELECT processing_started_at FROM notifications WHERE id = :notification_id) + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, (SELECT processing_started_at FROM notifications WHERE id = :notification_id), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
claimed_receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM chosen i
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
  FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id AND :inbox::boolean AND NOT :is_canceled::boolean
),
inbox_stored AS (
  INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
  SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
    COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
    now() + make_interval(days => c.inbox_days)
  FROM inbox_content c CROSS JOIN inbox_users u
  LEFT JOIN LATERAL (
    SELECT l.value AS fields
    FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
          WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
          ORDER BY i.last_seen_at DESC LIMIT 1) loc,
      json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
    WHERE lower(replace(l.key, '_', '-')) = loc.tag OR split_part(lower(replace(l.key, '_', '-')), '-', 1) = split_part(loc.tag, '-', 1)
    ORDER BY lower(replace(l.key, '_', '-')) = loc.tag DESC, lower(replace(l.key, '_', '-')) = split_part(loc.tag, '-', 1) DESC, l.ord
    LIMIT 1) v ON true
  ON CONFLICT (notification_id, user_id) DO NOTHING
  RETURNING 1
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM chosen)::int AS found,
    (SELECT max(installation_id) FROM chosen) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
    (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
),
progress AS (
  UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
    stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
    stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
    stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
    fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
  FROM counts c
  WHERE n.id = :notification_id
)
SELECT c.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c;

-- FanOutRepository.nextChunk (tags)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

UPDATE notifications n SET fanout_audience = (SELECT count(*) FROM installations i WHERE i.app_id = n.app_id AND i.deleted_at IS NULL AND i.tags && n.tags::text[])::int WHERE n.id = $1;

SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.tags && :tags::text[] AND i.installation_id > :cursor::text ORDER BY i.installation_id LIMIT :chunk_size) z
WHERE zone IS NOT NULL;

SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text));

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN :is_canceled::boolean THEN :reason_canceled::text
      WHEN :topic::text IS NOT NULL AND NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)) THEN :reason_unsubscribed::text
      WHEN :is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.push = false) THEN :reason_push_disabled::text
      WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
      WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
      WHEN NOT ((CASE WHEN i.platform = 'android' AND i.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE CASE i.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'web_push' WHEN 'huawei' THEN 'hms' END END) = ANY(:configured::text[])) THEN :reason_no_credentials::text
      WHEN i.permission = :permission_denied::text THEN :reason_permission_denied::text
      WHEN i.invalidated_at IS NOT NULL THEN :reason_invalidated::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN :reason_no_token::text
      WHEN :cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int THEN :reason_frequency_capped::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.tags && :tags::text[] AND i.installation_id > :cursor::text ORDER BY i.installation_id LIMIT :chunk_size
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
    CASE WHEN :variant_total::int IS NULL THEN NULL
      ELSE width_bucket(('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 1, 8), 16, '0'))::bit(64)::bigint % :variant_total::int, :variant_thresholds::int[]) END AS variant, CASE WHEN :sample_percent::int IS NULL THEN false
      ELSE NOT (('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 9, 8), 16, '0'))::bit(64)::bigint % 100 < :sample_percent::int) END AS held
  FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
),
group_offsets AS (
  SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
    CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, (SELECT processing_started_at FROM notifications WHERE id = :notification_id) + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, (SELECT processing_started_at FROM notifications WHERE id = :notification_id), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
claimed_receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM chosen i
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
  FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id AND :inbox::boolean AND NOT :is_canceled::boolean
),
inbox_stored AS (
  INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
  SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
    COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
    now() + make_interval(days => c.inbox_days)
  FROM inbox_content c CROSS JOIN inbox_users u
  LEFT JOIN LATERAL (
    SELECT l.value AS fields
    FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
          WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
          ORDER BY i.last_seen_at DESC LIMIT 1) loc,
      json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
    WHERE lower(replace(l.key, '_', '-')) = loc.tag OR split_part(lower(replace(l.key, '_', '-')), '-', 1) = split_part(loc.tag, '-', 1)
    ORDER BY lower(replace(l.key, '_', '-')) = loc.tag DESC, lower(replace(l.key, '_', '-')) = split_part(loc.tag, '-', 1) DESC, l.ord
    LIMIT 1) v ON true
  ON CONFLICT (notification_id, user_id) DO NOTHING
  RETURNING 1
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM chosen)::int AS found,
    (SELECT max(installation_id) FROM chosen) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
    (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
),
progress AS (
  UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
    stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
    stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
    stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
    fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
  FROM counts c
  WHERE n.id = :notification_id
)
SELECT c.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c;

-- FanOutRepository.nextChunk (filter)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

SET LOCAL statement_timeout = 10000;

CREATE TEMPORARY TABLE fanout_matched ON COMMIT DROP AS
SELECT i.id, (row_number() OVER () - 1) / $2 AS chunk
FROM installations i WHERE i.app_id = $1 AND i.deleted_at IS NULL AND ((i.platform = ANY($3::text[])) AND (i.properties @> $4::jsonb) AND (app_version_key(i.device ->> 'app_version') >= $5::integer[]) AND (i.last_seen_at >= $6::timestamptz) AND ((i.tags @> ARRAY[$7::text]) OR ((lower(substring(i.device ->> 'locale' FROM '^[A-Za-z]+')) <> $8::text) IS NOT TRUE)));

WITH staged AS (
  INSERT INTO fanout_audiences (notification_id, chunk, installation_ids)
  SELECT $1, chunk, array_agg(id) FROM fanout_matched GROUP BY chunk
  RETURNING 1
), sized AS (
  UPDATE notifications SET fanout_audience_chunks = (SELECT count(*) FROM staged) WHERE id = $1
  RETURNING fanout_audience_chunks)
SELECT fanout_audience_chunks AS chunks FROM sized;

SET LOCAL statement_timeout TO DEFAULT;

UPDATE notifications n SET fanout_audience = (SELECT COALESCE(sum(cardinality(a.installation_ids)), 0) FROM fanout_audiences a WHERE a.notification_id = n.id)::int WHERE n.id = $1;

SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.id = ANY((SELECT a.installation_ids FROM fanout_audiences a WHERE a.notification_id = :notification_id::uuid AND a.chunk = :audience_chunk::int)::uuid[])) z
WHERE zone IS NOT NULL;

SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text));

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN :is_canceled::boolean THEN :reason_canceled::text
      WHEN :topic::text IS NOT NULL AND NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)) THEN :reason_unsubscribed::text
      WHEN :is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.push = false) THEN :reason_push_disabled::text
      WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
      WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
      WHEN NOT ((CASE WHEN i.platform = 'android' AND i.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE CASE i.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'web_push' WHEN 'huawei' THEN 'hms' END END) = ANY(:configured::text[])) THEN :reason_no_credentials::text
      WHEN i.permission = :permission_denied::text THEN :reason_permission_denied::text
      WHEN i.invalidated_at IS NOT NULL THEN :reason_invalidated::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN :reason_no_token::text
      WHEN :cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int THEN :reason_frequency_capped::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.id = ANY((SELECT a.installation_ids FROM fanout_audiences a WHERE a.notification_id = :notification_id::uuid AND a.chunk = :audience_chunk::int)::uuid[])
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
    CASE WHEN :variant_total::int IS NULL THEN NULL
      ELSE width_bucket(('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 1, 8), 16, '0'))::bit(64)::bigint % :variant_total::int, :variant_thresholds::int[]) END AS variant, CASE WHEN :sample_percent::int IS NULL THEN false
      ELSE NOT (('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 9, 8), 16, '0'))::bit(64)::bigint % 100 < :sample_percent::int) END AS held
  FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
),
group_offsets AS (
  SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
    CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, (SELECT processing_started_at FROM notifications WHERE id = :notification_id) + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, (SELECT processing_started_at FROM notifications WHERE id = :notification_id), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
claimed_receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM chosen i
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
  FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id AND :inbox::boolean AND NOT :is_canceled::boolean
),
inbox_stored AS (
  INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
  SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
    COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
    now() + make_interval(days => c.inbox_days)
  FROM inbox_content c CROSS JOIN inbox_users u
  LEFT JOIN LATERAL (
    SELECT l.value AS fields
    FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
          WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
          ORDER BY i.last_seen_at DESC LIMIT 1) loc,
      json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
    WHERE lower(replace(l.key, '_', '-')) = loc.tag OR split_part(lower(replace(l.key, '_', '-')), '-', 1) = split_part(loc.tag, '-', 1)
    ORDER BY lower(replace(l.key, '_', '-')) = loc.tag DESC, lower(replace(l.key, '_', '-')) = split_part(loc.tag, '-', 1) DESC, l.ord
    LIMIT 1) v ON true
  ON CONFLICT (notification_id, user_id) DO NOTHING
  RETURNING 1
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM chosen)::int AS found,
    (SELECT max(installation_id) FROM chosen) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
    (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
),
progress AS (
  UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
    stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
    stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
    stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
    fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
  FROM counts c
  WHERE n.id = :notification_id
)
SELECT c.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c;

DELETE FROM fanout_audiences WHERE notification_id = $1 AND chunk = $2;

-- FanOutRepository.nextChunk (all)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

UPDATE notifications n SET fanout_audience = (SELECT count(*) FROM installations i WHERE i.app_id = n.app_id AND i.deleted_at IS NULL AND true)::int WHERE n.id = $1;

SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.installation_id > :cursor::text ORDER BY i.installation_id LIMIT :chunk_size) z
WHERE zone IS NOT NULL;

SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text));

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN :is_canceled::boolean THEN :reason_canceled::text
      WHEN :topic::text IS NOT NULL AND NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)) THEN :reason_unsubscribed::text
      WHEN :is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.push = false) THEN :reason_push_disabled::text
      WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
      WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
      WHEN NOT ((CASE WHEN i.platform = 'android' AND i.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE CASE i.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'web_push' WHEN 'huawei' THEN 'hms' END END) = ANY(:configured::text[])) THEN :reason_no_credentials::text
      WHEN i.permission = :permission_denied::text THEN :reason_permission_denied::text
      WHEN i.invalidated_at IS NOT NULL THEN :reason_invalidated::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN :reason_no_token::text
      WHEN :cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int THEN :reason_frequency_capped::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.installation_id > :cursor::text ORDER BY i.installation_id LIMIT :chunk_size
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
    CASE WHEN :variant_total::int IS NULL THEN NULL
      ELSE width_bucket(('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 1, 8), 16, '0'))::bit(64)::bigint % :variant_total::int, :variant_thresholds::int[]) END AS variant, CASE WHEN :sample_percent::int IS NULL THEN false
      ELSE NOT (('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 9, 8), 16, '0'))::bit(64)::bigint % 100 < :sample_percent::int) END AS held
  FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
),
group_offsets AS (
  SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
    CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, (SELECT processing_started_at FROM notifications WHERE id = :notification_id) + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, (SELECT processing_started_at FROM notifications WHERE id = :notification_id), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
claimed_receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM chosen i
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
  FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id AND :inbox::boolean AND NOT :is_canceled::boolean
),
inbox_stored AS (
  INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
  SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
    COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
    now() + make_interval(days => c.inbox_days)
  FROM inbox_content c CROSS JOIN inbox_users u
  LEFT JOIN LATERAL (
    SELECT l.value AS fields
    FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
          WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
          ORDER BY i.last_seen_at DESC LIMIT 1) loc,
      json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
    WHERE lower(replace(l.key, '_', '-')) = loc.tag OR split_part(lower(replace(l.key, '_', '-')), '-', 1) = split_part(loc.tag, '-', 1)
    ORDER BY lower(replace(l.key, '_', '-')) = loc.tag DESC, lower(replace(l.key, '_', '-')) = split_part(loc.tag, '-', 1) DESC, l.ord
    LIMIT 1) v ON true
  ON CONFLICT (notification_id, user_id) DO NOTHING
  RETURNING 1
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM chosen)::int AS found,
    (SELECT max(installation_id) FROM chosen) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
    (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
),
progress AS (
  UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
    stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
    stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
    stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
    fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
  FROM counts c
  WHERE n.id = :notification_id
)
SELECT c.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c;

-- FanOutRepository.nextChunk (topic)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

UPDATE notifications n SET fanout_audience = (SELECT count(*) FROM installations i WHERE i.app_id = n.app_id AND i.deleted_at IS NULL AND i.user_id IS NOT NULL AND NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = n.app_id AND s.topic_key = $2::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = n.app_id AND t.key = $2::text), false)))::int WHERE n.id = $1;

WITH walk AS (SELECT w.user_id FROM (
    SELECT a.user_id FROM (SELECT s.user_id FROM topic_subscriptions s
      WHERE NOT COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false) AND s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.subscribed AND s.user_id > :cursor::text
      ORDER BY s.user_id LIMIT :chunk_size::int) a
    UNION ALL
    SELECT b.user_id FROM (SELECT DISTINCT u.user_id FROM installations u
      WHERE COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false) AND u.app_id = :app_id::uuid AND u.deleted_at IS NULL AND u.user_id > :cursor::text
      ORDER BY u.user_id LIMIT :chunk_size::int) b) w)
SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.user_id = ANY(ARRAY(SELECT user_id FROM walk)) AND NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false))) z
WHERE zone IS NOT NULL;

SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text));

WITH walk AS (SELECT w.user_id FROM (
    SELECT a.user_id FROM (SELECT s.user_id FROM topic_subscriptions s
      WHERE NOT COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false) AND s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.subscribed AND s.user_id > :cursor::text
      ORDER BY s.user_id LIMIT :chunk_size::int) a
    UNION ALL
    SELECT b.user_id FROM (SELECT DISTINCT u.user_id FROM installations u
      WHERE COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false) AND u.app_id = :app_id::uuid AND u.deleted_at IS NULL AND u.user_id > :cursor::text
      ORDER BY u.user_id LIMIT :chunk_size::int) b) w),
chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN :is_canceled::boolean THEN :reason_canceled::text
      WHEN :topic::text IS NOT NULL AND NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)) THEN :reason_unsubscribed::text
      WHEN :is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.push = false) THEN :reason_push_disabled::text
      WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
      WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
      WHEN NOT ((CASE WHEN i.platform = 'android' AND i.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE CASE i.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'web_push' WHEN 'huawei' THEN 'hms' END END) = ANY(:configured::text[])) THEN :reason_no_credentials::text
      WHEN i.permission = :permission_denied::text THEN :reason_permission_denied::text
      WHEN i.invalidated_at IS NOT NULL THEN :reason_invalidated::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN :reason_no_token::text
      WHEN :cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int THEN :reason_frequency_capped::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.user_id = ANY(ARRAY(SELECT user_id FROM walk)) AND NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false))
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
    CASE WHEN :variant_total::int IS NULL THEN NULL
      ELSE width_bucket(('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 1, 8), 16, '0'))::bit(64)::bigint % :variant_total::int, :variant_thresholds::int[]) END AS variant, CASE WHEN :sample_percent::int IS NULL THEN false
      ELSE NOT (('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 9, 8), 16, '0'))::bit(64)::bigint % 100 < :sample_percent::int) END AS held
  FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
),
group_offsets AS (
  SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
    CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, (SELECT processing_started_at FROM notifications WHERE id = :notification_id) + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, (SELECT processing_started_at FROM notifications WHERE id = :notification_id), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
claimed_receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM chosen i
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
  FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id AND :inbox::boolean AND NOT :is_canceled::boolean
),
inbox_stored AS (
  INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
  SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
    COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
    now() + make_interval(days => c.inbox_days)
  FROM inbox_content c CROSS JOIN inbox_users u
  LEFT JOIN LATERAL (
    SELECT l.value AS fields
    FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
          WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
          ORDER BY i.last_seen_at DESC LIMIT 1) loc,
      json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
    WHERE lower(replace(l.key, '_', '-')) = loc.tag OR split_part(lower(replace(l.key, '_', '-')), '-', 1) = split_part(loc.tag, '-', 1)
    ORDER BY lower(replace(l.key, '_', '-')) = loc.tag DESC, lower(replace(l.key, '_', '-')) = split_part(loc.tag, '-', 1) DESC, l.ord
    LIMIT 1) v ON true
  ON CONFLICT (notification_id, user_id) DO NOTHING
  RETURNING 1
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM walk)::int AS found,
    (SELECT max(user_id) FROM walk) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
    (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
),
progress AS (
  UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
    stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
    stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
    stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
    fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
  FROM counts c
  WHERE n.id = :notification_id
)
SELECT c.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c;

-- FanOutRepository.nextChunk (the last, user_ids)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

UPDATE notifications SET fanned_out_at = now() WHERE id = $1;

-- FanOutRepository.nextChunk (the last, installation_ids)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

UPDATE notifications SET fanned_out_at = now(), target_users = u.n, stat_users = u.n
FROM (SELECT count(DISTINCT d.user_id)::int AS n FROM deliveries d
      WHERE d.notification_id = $1 AND d.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = $1)) u
WHERE id = $1;

-- FanOutRepository.nextChunk (the last, tags)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text));

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN :is_canceled::boolean THEN :reason_canceled::text
      WHEN :topic::text IS NOT NULL AND NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)) THEN :reason_unsubscribed::text
      WHEN :is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.push = false) THEN :reason_push_disabled::text
      WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
      WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
      WHEN NOT ((CASE WHEN i.platform = 'android' AND i.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE CASE i.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'web_push' WHEN 'huawei' THEN 'hms' END END) = ANY(:configured::text[])) THEN :reason_no_credentials::text
      WHEN i.permission = :permission_denied::text THEN :reason_permission_denied::text
      WHEN i.invalidated_at IS NOT NULL THEN :reason_invalidated::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN :reason_no_token::text
      WHEN :cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int THEN :reason_frequency_capped::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.tags && :tags::text[] AND i.installation_id > :cursor::text ORDER BY i.installation_id LIMIT :chunk_size
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
    CASE WHEN :variant_total::int IS NULL THEN NULL
      ELSE width_bucket(('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 1, 8), 16, '0'))::bit(64)::bigint % :variant_total::int, :variant_thresholds::int[]) END AS variant, CASE WHEN :sample_percent::int IS NULL THEN false
      ELSE NOT (('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 9, 8), 16, '0'))::bit(64)::bigint % 100 < :sample_percent::int) END AS held
  FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
),
group_offsets AS (
  SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
    CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, (SELECT processing_started_at FROM notifications WHERE id = :notification_id) + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, (SELECT processing_started_at FROM notifications WHERE id = :notification_id), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
claimed_receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM chosen i
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
  FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id AND :inbox::boolean AND NOT :is_canceled::boolean
),
inbox_stored AS (
  INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
  SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
    COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
    now() + make_interval(days => c.inbox_days)
  FROM inbox_content c CROSS JOIN inbox_users u
  LEFT JOIN LATERAL (
    SELECT l.value AS fields
    FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
          WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
          ORDER BY i.last_seen_at DESC LIMIT 1) loc,
      json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
    WHERE lower(replace(l.key, '_', '-')) = loc.tag OR split_part(lower(replace(l.key, '_', '-')), '-', 1) = split_part(loc.tag, '-', 1)
    ORDER BY lower(replace(l.key, '_', '-')) = loc.tag DESC, lower(replace(l.key, '_', '-')) = split_part(loc.tag, '-', 1) DESC, l.ord
    LIMIT 1) v ON true
  ON CONFLICT (notification_id, user_id) DO NOTHING
  RETURNING 1
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM chosen)::int AS found,
    (SELECT max(installation_id) FROM chosen) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
    (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
),
progress AS (
  UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
    stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
    stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
    stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
    fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
  FROM counts c
  WHERE n.id = :notification_id
)
SELECT c.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c;

UPDATE notifications SET fanned_out_at = now(), target_users = u.n, stat_users = u.n
FROM (SELECT count(DISTINCT d.user_id)::int AS n FROM deliveries d
      WHERE d.notification_id = $1 AND d.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = $1)) u
WHERE id = $1;

-- FanOutRepository.nextChunk (the last, filter)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text));

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN :is_canceled::boolean THEN :reason_canceled::text
      WHEN :topic::text IS NOT NULL AND NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)) THEN :reason_unsubscribed::text
      WHEN :is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.push = false) THEN :reason_push_disabled::text
      WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
      WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
      WHEN NOT ((CASE WHEN i.platform = 'android' AND i.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE CASE i.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'web_push' WHEN 'huawei' THEN 'hms' END END) = ANY(:configured::text[])) THEN :reason_no_credentials::text
      WHEN i.permission = :permission_denied::text THEN :reason_permission_denied::text
      WHEN i.invalidated_at IS NOT NULL THEN :reason_invalidated::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN :reason_no_token::text
      WHEN :cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int THEN :reason_frequency_capped::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.id = ANY((SELECT a.installation_ids FROM fanout_audiences a WHERE a.notification_id = :notification_id::uuid AND a.chunk = :audience_chunk::int)::uuid[])
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
    CASE WHEN :variant_total::int IS NULL THEN NULL
      ELSE width_bucket(('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 1, 8), 16, '0'))::bit(64)::bigint % :variant_total::int, :variant_thresholds::int[]) END AS variant, CASE WHEN :sample_percent::int IS NULL THEN false
      ELSE NOT (('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 9, 8), 16, '0'))::bit(64)::bigint % 100 < :sample_percent::int) END AS held
  FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
),
group_offsets AS (
  SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
    CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, (SELECT processing_started_at FROM notifications WHERE id = :notification_id) + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, (SELECT processing_started_at FROM notifications WHERE id = :notification_id), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
claimed_receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM chosen i
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
  FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id AND :inbox::boolean AND NOT :is_canceled::boolean
),
inbox_stored AS (
  INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
  SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
    COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
    now() + make_interval(days => c.inbox_days)
  FROM inbox_content c CROSS JOIN inbox_users u
  LEFT JOIN LATERAL (
    SELECT l.value AS fields
    FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
          WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
          ORDER BY i.last_seen_at DESC LIMIT 1) loc,
      json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
    WHERE lower(replace(l.key, '_', '-')) = loc.tag OR split_part(lower(replace(l.key, '_', '-')), '-', 1) = split_part(loc.tag, '-', 1)
    ORDER BY lower(replace(l.key, '_', '-')) = loc.tag DESC, lower(replace(l.key, '_', '-')) = split_part(loc.tag, '-', 1) DESC, l.ord
    LIMIT 1) v ON true
  ON CONFLICT (notification_id, user_id) DO NOTHING
  RETURNING 1
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM chosen)::int AS found,
    (SELECT max(installation_id) FROM chosen) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
    (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
),
progress AS (
  UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
    stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
    stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
    stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
    fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
  FROM counts c
  WHERE n.id = :notification_id
)
SELECT c.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c;

DELETE FROM fanout_audiences WHERE notification_id = $1 AND chunk = $2;

UPDATE notifications SET fanned_out_at = now(), target_users = u.n, stat_users = u.n
FROM (SELECT count(DISTINCT d.user_id)::int AS n FROM deliveries d
      WHERE d.notification_id = $1 AND d.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = $1)) u
WHERE id = $1;

-- FanOutRepository.nextChunk (the last, all)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text));

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN :is_canceled::boolean THEN :reason_canceled::text
      WHEN :topic::text IS NOT NULL AND NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)) THEN :reason_unsubscribed::text
      WHEN :is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.push = false) THEN :reason_push_disabled::text
      WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
      WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
      WHEN NOT ((CASE WHEN i.platform = 'android' AND i.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE CASE i.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'web_push' WHEN 'huawei' THEN 'hms' END END) = ANY(:configured::text[])) THEN :reason_no_credentials::text
      WHEN i.permission = :permission_denied::text THEN :reason_permission_denied::text
      WHEN i.invalidated_at IS NOT NULL THEN :reason_invalidated::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN :reason_no_token::text
      WHEN :cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int THEN :reason_frequency_capped::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.installation_id > :cursor::text ORDER BY i.installation_id LIMIT :chunk_size
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
    CASE WHEN :variant_total::int IS NULL THEN NULL
      ELSE width_bucket(('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 1, 8), 16, '0'))::bit(64)::bigint % :variant_total::int, :variant_thresholds::int[]) END AS variant, CASE WHEN :sample_percent::int IS NULL THEN false
      ELSE NOT (('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 9, 8), 16, '0'))::bit(64)::bigint % 100 < :sample_percent::int) END AS held
  FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
),
group_offsets AS (
  SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
    CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, (SELECT processing_started_at FROM notifications WHERE id = :notification_id) + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, (SELECT processing_started_at FROM notifications WHERE id = :notification_id), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
claimed_receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM chosen i
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
  FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id AND :inbox::boolean AND NOT :is_canceled::boolean
),
inbox_stored AS (
  INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
  SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
    COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
    now() + make_interval(days => c.inbox_days)
  FROM inbox_content c CROSS JOIN inbox_users u
  LEFT JOIN LATERAL (
    SELECT l.value AS fields
    FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
          WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
          ORDER BY i.last_seen_at DESC LIMIT 1) loc,
      json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
    WHERE lower(replace(l.key, '_', '-')) = loc.tag OR split_part(lower(replace(l.key, '_', '-')), '-', 1) = split_part(loc.tag, '-', 1)
    ORDER BY lower(replace(l.key, '_', '-')) = loc.tag DESC, lower(replace(l.key, '_', '-')) = split_part(loc.tag, '-', 1) DESC, l.ord
    LIMIT 1) v ON true
  ON CONFLICT (notification_id, user_id) DO NOTHING
  RETURNING 1
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM chosen)::int AS found,
    (SELECT max(installation_id) FROM chosen) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
    (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
),
progress AS (
  UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
    stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
    stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
    stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
    fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
  FROM counts c
  WHERE n.id = :notification_id
)
SELECT c.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c;

UPDATE notifications SET fanned_out_at = now(), target_users = u.n, stat_users = u.n
FROM (SELECT count(DISTINCT d.user_id)::int AS n FROM deliveries d
      WHERE d.notification_id = $1 AND d.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = $1)) u
WHERE id = $1;

-- FanOutRepository.nextChunk (the last, topic)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

SELECT pg_advisory_xact_lock(hashtext('frequency-cap:' || $1::text));

WITH walk AS (SELECT w.user_id FROM (
    SELECT a.user_id FROM (SELECT s.user_id FROM topic_subscriptions s
      WHERE NOT COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false) AND s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.subscribed AND s.user_id > :cursor::text
      ORDER BY s.user_id LIMIT :chunk_size::int) a
    UNION ALL
    SELECT b.user_id FROM (SELECT DISTINCT u.user_id FROM installations u
      WHERE COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false) AND u.app_id = :app_id::uuid AND u.deleted_at IS NULL AND u.user_id > :cursor::text
      ORDER BY u.user_id LIMIT :chunk_size::int) b) w),
chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN :is_canceled::boolean THEN :reason_canceled::text
      WHEN :topic::text IS NOT NULL AND NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)) THEN :reason_unsubscribed::text
      WHEN :is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.push = false) THEN :reason_push_disabled::text
      WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
      WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
      WHEN NOT ((CASE WHEN i.platform = 'android' AND i.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE CASE i.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'web_push' WHEN 'huawei' THEN 'hms' END END) = ANY(:configured::text[])) THEN :reason_no_credentials::text
      WHEN i.permission = :permission_denied::text THEN :reason_permission_denied::text
      WHEN i.invalidated_at IS NOT NULL THEN :reason_invalidated::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN :reason_no_token::text
      WHEN :cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int THEN :reason_frequency_capped::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.user_id = ANY(ARRAY(SELECT user_id FROM walk)) AND NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false))
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
    CASE WHEN :variant_total::int IS NULL THEN NULL
      ELSE width_bucket(('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 1, 8), 16, '0'))::bit(64)::bigint % :variant_total::int, :variant_thresholds::int[]) END AS variant, CASE WHEN :sample_percent::int IS NULL THEN false
      ELSE NOT (('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 9, 8), 16, '0'))::bit(64)::bigint % 100 < :sample_percent::int) END AS held
  FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
),
group_offsets AS (
  SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
    CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, (SELECT processing_started_at FROM notifications WHERE id = :notification_id) + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, (SELECT processing_started_at FROM notifications WHERE id = :notification_id), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
claimed_receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM chosen i
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
  FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id AND :inbox::boolean AND NOT :is_canceled::boolean
),
inbox_stored AS (
  INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
  SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
    COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
    now() + make_interval(days => c.inbox_days)
  FROM inbox_content c CROSS JOIN inbox_users u
  LEFT JOIN LATERAL (
    SELECT l.value AS fields
    FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
          WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
          ORDER BY i.last_seen_at DESC LIMIT 1) loc,
      json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
    WHERE lower(replace(l.key, '_', '-')) = loc.tag OR split_part(lower(replace(l.key, '_', '-')), '-', 1) = split_part(loc.tag, '-', 1)
    ORDER BY lower(replace(l.key, '_', '-')) = loc.tag DESC, lower(replace(l.key, '_', '-')) = split_part(loc.tag, '-', 1) DESC, l.ord
    LIMIT 1) v ON true
  ON CONFLICT (notification_id, user_id) DO NOTHING
  RETURNING 1
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM walk)::int AS found,
    (SELECT max(user_id) FROM walk) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
    (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
),
progress AS (
  UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
    stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
    stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
    stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
    fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
  FROM counts c
  WHERE n.id = :notification_id
)
SELECT c.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c;

UPDATE notifications SET fanned_out_at = now(), target_users = u.n, stat_users = u.n
FROM (SELECT count(DISTINCT d.user_id)::int AS n FROM deliveries d
      WHERE d.notification_id = $1 AND d.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = $1)) u
WHERE id = $1;

-- FanOutRepository.fanOutListIn
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  fanout_audience_chunks AS audience_chunks, fanout_audience AS audience,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN :is_canceled::boolean THEN :reason_canceled::text
      WHEN :topic::text IS NOT NULL AND NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)) THEN :reason_unsubscribed::text
      WHEN :is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.push = false) THEN :reason_push_disabled::text
      WHEN NOT (i.platform = ANY(:wanted::text[])) THEN :reason_platform_excluded::text
      WHEN i.platform = ANY(:silentless::text[]) THEN :reason_silent_not_supported::text
      WHEN NOT ((CASE WHEN i.platform = 'android' AND i.web_push_subscription IS NOT NULL THEN 'unifiedpush' ELSE CASE i.platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' WHEN 'web' THEN 'web_push' WHEN 'huawei' THEN 'hms' END END) = ANY(:configured::text[])) THEN :reason_no_credentials::text
      WHEN i.permission = :permission_denied::text THEN :reason_permission_denied::text
      WHEN i.invalidated_at IS NOT NULL THEN :reason_invalidated::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN :reason_no_token::text
      WHEN :cap_max::int IS NOT NULL AND (SELECT count(*) FROM (
        SELECT 1 FROM marketing_receipts r
        WHERE r.installation_id = i.id AND r.accepted_at > now() - make_interval(hours => :cap_hours::int) LIMIT :cap_max::int) r) >= :cap_max::int THEN :reason_frequency_capped::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = :app_id AND i.deleted_at IS NULL AND i.user_id = ANY(:ids::text[])
),
targets AS (
  SELECT c.id, c.user_id, c.platform, c.installation_id, CASE WHEN z.zone IS NULL THEN :fallback_due::timestamptz ELSE z.due END AS due,
    COALESCE(c.skip_reason, CASE WHEN COALESCE(z.quiet_skip, :fallback_quiet_skip::boolean) THEN :reason_quiet_hours::text END) AS skip_reason,
    CASE WHEN :variant_total::int IS NULL THEN NULL
      ELSE width_bucket(('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 1, 8), 16, '0'))::bit(64)::bigint % :variant_total::int, :variant_thresholds::int[]) END AS variant, CASE WHEN :sample_percent::int IS NULL THEN false
      ELSE NOT (('x' || lpad(substr(md5(:notification_id::uuid::text || ':' || CASE WHEN c.user_id IS NOT NULL THEN 'u:' || c.user_id ELSE 'i:' || c.installation_id END), 9, 8), 16, '0'))::bit(64)::bigint % 100 < :sample_percent::int) END AS held
  FROM chosen c LEFT JOIN unnest(:zones::text[], :zone_dues::timestamptz[], :zone_quiet_skips::boolean[]) AS z(zone, due, quiet_skip) ON z.zone = c.zone
),
numbered AS (
  SELECT t.*, CASE WHEN t.skip_reason IS NULL
    THEN (row_number() OVER (PARTITION BY t.skip_reason IS NULL, t.due, t.held ORDER BY t.platform, t.id) - 1) / :batch_size END AS local_batch
  FROM targets t
),
due_groups AS (
  SELECT due, held, max(local_batch) + 1 AS batches FROM numbered WHERE skip_reason IS NULL GROUP BY due, held
),
group_offsets AS (
  SELECT due, held, batches, (sum(batches) OVER (ORDER BY due NULLS FIRST, held) - batches)::int AS first_batch FROM due_groups
),
placed AS (
  SELECT n.id, n.platform, n.user_id, n.skip_reason, b.batch, n.variant, n.held,
    CASE WHEN :pace_ms::float8 IS NULL OR n.skip_reason IS NOT NULL THEN n.due
      ELSE GREATEST(n.due, (SELECT processing_started_at FROM notifications WHERE id = :notification_id) + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, (SELECT processing_started_at FROM notifications WHERE id = :notification_id), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
claimed_receipts AS (
  INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
  SELECT installation_id, now(), :notification_id FROM inserted WHERE :cap_max::int IS NOT NULL AND status <> :status_skipped::text
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM unnest(:ids::text[]) AS i(user_id)
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT n.title, n.body, n.image_url, n.action_url, n.data, n.localizations, n.options ->> 'topic' AS topic, a.inbox_days
  FROM notifications n JOIN apps a ON a.id = n.app_id WHERE n.id = :notification_id AND :inbox::boolean AND NOT :is_canceled::boolean
),
inbox_stored AS (
  INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, image_url, action_url, data, topic, expires_at)
  SELECT :app_id, u.user_id, :notification_id, COALESCE(v.fields ->> 'title', c.title), COALESCE(v.fields ->> 'body', c.body),
    COALESCE(v.fields ->> 'image_url', c.image_url), COALESCE(v.fields ->> 'action_url', c.action_url), c.data, c.topic,
    now() + make_interval(days => c.inbox_days)
  FROM inbox_content c CROSS JOIN inbox_users u
  LEFT JOIN LATERAL (
    SELECT l.value AS fields
    FROM (SELECT lower(replace(btrim(i.device ->> 'locale'), '_', '-')) AS tag FROM installations i
          WHERE i.app_id = :app_id AND i.user_id = u.user_id AND i.deleted_at IS NULL AND c.localizations IS NOT NULL
          ORDER BY i.last_seen_at DESC LIMIT 1) loc,
      json_each(c.localizations) WITH ORDINALITY AS l(key, value, ord)
    WHERE lower(replace(l.key, '_', '-')) = loc.tag OR split_part(lower(replace(l.key, '_', '-')), '-', 1) = split_part(loc.tag, '-', 1)
    ORDER BY lower(replace(l.key, '_', '-')) = loc.tag DESC, lower(replace(l.key, '_', '-')) = split_part(loc.tag, '-', 1) DESC, l.ord
    LIMIT 1) v ON true
  ON CONFLICT (notification_id, user_id) DO NOTHING
  RETURNING 1
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT :notification_id::uuid, status FROM inserted WHERE status = :status_skipped::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
),
counts AS (
  SELECT
    (SELECT count(*) FROM chosen)::int AS found,
    (SELECT max(installation_id) FROM chosen) AS last_installation_id,
    (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
    (SELECT count(*) FROM inserted)::int AS installations,
    (SELECT count(*) FROM inserted WHERE status = :status_skipped::text)::int AS skipped,
    (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
    (SELECT count(*) FROM inbox_stored)::int AS inbox_stored
),
progress AS (
  UPDATE notifications n SET fanout_position = n.fanout_position + :advanced::int, fanout_batches = n.fanout_batches + c.batches_used,
    stat_users = n.stat_users + CASE WHEN :count_users::boolean THEN c.users ELSE 0 END,
    stat_installations = n.stat_installations + c.installations, stat_skipped = n.stat_skipped + c.skipped,
    stat_inbox_stored = n.stat_inbox_stored + c.inbox_stored,
    fanout_cursor = CASE WHEN :walked::boolean THEN COALESCE(c.last_installation_id, n.fanout_cursor) ELSE n.fanout_cursor END
  FROM counts c
  WHERE n.id = :notification_id
)
SELECT c.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c;

UPDATE notifications SET fanned_out_at = now() WHERE id = $1;

-- FanOutRepository.finishSmallSend
UPDATE notifications n SET fanned_out_at = now(),
  target_users = CASE WHEN n.recipient_kind = $2 THEN n.target_users ELSE u.n END,
  stat_users = CASE WHEN n.recipient_kind = $2 THEN n.stat_users ELSE u.n END
FROM (SELECT count(DISTINCT d.user_id)::int AS n FROM deliveries d
      WHERE d.notification_id = $1 AND d.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = $1)) u
WHERE n.id = $1 AND n.fanned_out_at IS NULL
RETURNING n.id;

-- FanOutRepository.fail
UPDATE notifications SET failure_reason = :reason, fanned_out_at = now(), fanout_audience_chunks = 0
WHERE id = :notification_id AND fanned_out_at IS NULL
RETURNING id;
