-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/small-sends/small-sends.repository.ts; do not edit.

-- SmallSendsRepository.store (user_ids)
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
      ELSE GREATEST(n.due, now() + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, now(), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM unnest(:ids::text[]) AS i(user_id)
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT :title::text AS title, :body::text AS body, :image_url::text AS image_url, :action_url::text AS action_url, :data::jsonb AS data,
    :localizations::json AS localizations, :options::jsonb ->> 'topic' AS topic, a.inbox_days
  FROM apps a WHERE a.id = :app_id::uuid AND :inbox::boolean AND NOT :is_canceled::boolean
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
stored AS (
  INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users,
    recipient_kind, installation_ids, tags, send_at, localizations, recipient_filter, template, variables,
    processing_started_at, fanout_position, fanout_batches, fanout_cursor, stat_users, stat_installations, stat_skipped, stat_inbox_stored)
  SELECT :notification_id::uuid, :app_id::uuid, :title::text, :body::text, :image_url::text, :action_url::text, :data::jsonb, :options::jsonb,
    :user_ids::text[], :target_users::int, :recipient_kind::text, :installation_ids::text[], :tags::text[], :send_at::timestamptz,
    :localizations::json, :recipient_filter::jsonb, :template::jsonb, :variables::jsonb,
    now(), :advanced::int, c.batches_used, CASE WHEN :walked::boolean THEN c.last_installation_id END,
    CASE WHEN :count_users::boolean THEN c.users ELSE 0 END, c.installations, c.skipped, c.inbox_stored
  FROM counts c
  RETURNING id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
stat_inbox_stored, stat_inbox_read, created_at, processing_started_at, completed_at, send_at, canceled_at, failure_reason, localizations, fanned_out_at, fanout_audience, recipient_kind, tags, template, variables,
variants, ab_phase, ab_due_at, ab_winner, ab_decided_at
)
SELECT c.*, stored.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c, stored;

-- SmallSendsRepository.store (user_ids, under a key)
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
      ELSE GREATEST(n.due, now() + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, now(), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM unnest(:ids::text[]) AS i(user_id)
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT :title::text AS title, :body::text AS body, :image_url::text AS image_url, :action_url::text AS action_url, :data::jsonb AS data,
    :localizations::json AS localizations, :options::jsonb ->> 'topic' AS topic, a.inbox_days
  FROM apps a WHERE a.id = :app_id::uuid AND :inbox::boolean AND NOT :is_canceled::boolean
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
stored AS (
  INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users,
    recipient_kind, installation_ids, tags, send_at, localizations, recipient_filter, template, variables,
    processing_started_at, fanout_position, fanout_batches, fanout_cursor, stat_users, stat_installations, stat_skipped, stat_inbox_stored)
  SELECT :notification_id::uuid, :app_id::uuid, :title::text, :body::text, :image_url::text, :action_url::text, :data::jsonb, :options::jsonb,
    :user_ids::text[], :target_users::int, :recipient_kind::text, :installation_ids::text[], :tags::text[], :send_at::timestamptz,
    :localizations::json, :recipient_filter::jsonb, :template::jsonb, :variables::jsonb,
    now(), :advanced::int, c.batches_used, CASE WHEN :walked::boolean THEN c.last_installation_id END,
    CASE WHEN :count_users::boolean THEN c.users ELSE 0 END, c.installations, c.skipped, c.inbox_stored
  FROM counts c
  RETURNING id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
stat_inbox_stored, stat_inbox_read, created_at, processing_started_at, completed_at, send_at, canceled_at, failure_reason, localizations, fanned_out_at, fanout_audience, recipient_kind, tags, template, variables,
variants, ab_phase, ab_due_at, ab_winner, ab_decided_at
),
linked AS (
  UPDATE idempotency_keys SET notification_id = :notification_id::uuid WHERE app_id = :app_id::uuid AND key = :idempotency_key::text
)
SELECT c.*, stored.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c, stored;

-- SmallSendsRepository.store (installation_ids)
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
      ELSE GREATEST(n.due, now() + make_interval(secs => b.batch * :pace_ms::float8 / 1000)) END AS due
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due AND g.held = n.held,
    LATERAL (SELECT COALESCE(:batches_so_far + g.first_batch + n.local_batch, -1) AS batch) b
),
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at, variant)
  SELECT :notification_id, n.id, now(), n.platform, n.user_id, n.batch,
    CASE WHEN n.skip_reason IS NOT NULL THEN :status_skipped::text WHEN n.held OR n.due > now() THEN :status_scheduled::text ELSE :status_pending::text END,
    n.skip_reason, CASE WHEN n.held AND n.skip_reason IS NULL THEN NULL ELSE n.due END,
    CASE WHEN n.skip_reason IS NOT NULL THEN NULL WHEN n.held THEN 'infinity'::timestamptz WHEN n.due > now() THEN n.due END,
    CASE WHEN n.held THEN NULL ELSE n.variant END
  FROM placed n WHERE :push::boolean
  RETURNING installation_id, status, batch, next_attempt_at, platform, reason
),
inbox_users AS (
  SELECT DISTINCT i.user_id FROM chosen i
  WHERE i.user_id IS NOT NULL AND (:topic::text IS NULL OR NOT NOT COALESCE((SELECT s.subscribed FROM topic_subscriptions s WHERE s.app_id = :app_id::uuid AND s.topic_key = :topic::text AND s.user_id = i.user_id), COALESCE((SELECT t.default_subscribed FROM topics t WHERE t.app_id = :app_id::uuid AND t.key = :topic::text), false)))
    AND NOT (:is_marketing::boolean AND EXISTS (SELECT 1 FROM user_channel_preferences p WHERE p.app_id = :app_id::uuid AND p.user_id = i.user_id AND p.inbox = false))
),
inbox_content AS (
  SELECT :title::text AS title, :body::text AS body, :image_url::text AS image_url, :action_url::text AS action_url, :data::jsonb AS data,
    :localizations::json AS localizations, :options::jsonb ->> 'topic' AS topic, a.inbox_days
  FROM apps a WHERE a.id = :app_id::uuid AND :inbox::boolean AND NOT :is_canceled::boolean
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
stored AS (
  INSERT INTO notifications (id, app_id, title, body, image_url, action_url, data, options, user_ids, target_users,
    recipient_kind, installation_ids, tags, send_at, localizations, recipient_filter, template, variables,
    processing_started_at, fanout_position, fanout_batches, fanout_cursor, stat_users, stat_installations, stat_skipped, stat_inbox_stored)
  SELECT :notification_id::uuid, :app_id::uuid, :title::text, :body::text, :image_url::text, :action_url::text, :data::jsonb, :options::jsonb,
    :user_ids::text[], :target_users::int, :recipient_kind::text, :installation_ids::text[], :tags::text[], :send_at::timestamptz,
    :localizations::json, :recipient_filter::jsonb, :template::jsonb, :variables::jsonb,
    now(), :advanced::int, c.batches_used, CASE WHEN :walked::boolean THEN c.last_installation_id END,
    CASE WHEN :count_users::boolean THEN c.users ELSE 0 END, c.installations, c.skipped, c.inbox_stored
  FROM counts c
  RETURNING id, app_id, title, body, image_url, action_url, data, options, target_users,
stat_users, stat_installations, stat_accepted, stat_received, stat_displayed, stat_opened, stat_failed, stat_skipped,
stat_inbox_stored, stat_inbox_read, created_at, processing_started_at, completed_at, send_at, canceled_at, failure_reason, localizations, fanned_out_at, fanout_audience, recipient_kind, tags, template, variables,
variants, ab_phase, ab_due_at, ab_winner, ab_decided_at
)
SELECT c.*, stored.*,
  CASE WHEN c.inbox_stored > 0 THEN (SELECT 1 FROM pg_notify(:inbox_channel::text,
    json_build_object('app_id', :app_id::text, 'notification_id', :notification_id::text)::text)) END AS inbox_notified,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = :status_skipped::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted
           WHERE status <> :status_skipped::text AND next_attempt_at IS DISTINCT FROM 'infinity'::timestamptz GROUP BY batch) b) AS batches
FROM counts c, stored;
