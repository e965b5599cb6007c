-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the calls in src/queries/sql-cases.ts; do not edit.

-- FanOutRepository.start
UPDATE notifications SET processing_started_at = COALESCE(processing_started_at, now())
WHERE id = $1 AND (send_at IS NULL OR send_at <= now() OR canceled_at IS NOT NULL OR processing_started_at IS NOT NULL)
RETURNING app_id, options, title IS NULL AS silent, fanout_position, fanned_out_at, send_at, GREATEST(created_at, send_at) AS reference_at;

SELECT send_at FROM notifications WHERE id = $1;

-- FanOutRepository.nextChunk (user_ids)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.user_id = ANY($2::text[])) z
WHERE zone IS NOT NULL;

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN $7::boolean THEN $12::text
      WHEN NOT (i.platform = ANY($4::text[])) THEN $13::text
      WHEN i.platform = ANY($11::text[]) THEN $14::text
      WHEN NOT (i.platform = ANY($5::text[])) THEN $15::text
      WHEN i.permission = $22::text THEN $16::text
      WHEN i.invalidated_at IS NOT NULL THEN $17::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN $18::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.user_id = ANY($23::text[])
),
targets AS (
  SELECT c.*, COALESCE(z.due, $10::timestamptz) AS due
  FROM chosen c LEFT JOIN unnest($8::text[], $9::timestamptz[]) AS z(zone, due) ON z.zone = c.zone
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
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at)
  SELECT $2, n.id, (SELECT processing_started_at FROM notifications WHERE id = $2), n.platform, n.user_id, COALESCE($6 + g.first_batch + n.local_batch, -1),
    CASE WHEN n.skip_reason IS NOT NULL THEN $19::text WHEN n.due > now() THEN $20::text ELSE $21::text END,
    n.skip_reason, n.due, CASE WHEN n.skip_reason IS NULL AND n.due > now() THEN n.due END
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due
  ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING
  RETURNING status, batch, next_attempt_at, platform, reason
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT $2::uuid, status FROM inserted WHERE status = $19::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
)
SELECT
  (SELECT count(*) FROM chosen)::int AS found,
  (SELECT max(installation_id) FROM chosen) AS last_installation_id,
  (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
  (SELECT count(*) FROM inserted)::int AS installations,
  (SELECT count(*) FROM inserted WHERE status = $19::text)::int AS skipped,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = $19::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted WHERE status <> $19::text GROUP BY batch) b) AS batches;

UPDATE notifications SET fanout_position = fanout_position + $2, fanout_batches = fanout_batches + $3,
  stat_users = stat_users + $4, stat_installations = stat_installations + $5, stat_skipped = stat_skipped + $6,
  fanout_cursor = COALESCE($7, fanout_cursor)
WHERE id = $1;

-- FanOutRepository.nextChunk (installation_ids)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.installation_id = ANY($2::text[])) z
WHERE zone IS NOT NULL;

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN $7::boolean THEN $12::text
      WHEN NOT (i.platform = ANY($4::text[])) THEN $13::text
      WHEN i.platform = ANY($11::text[]) THEN $14::text
      WHEN NOT (i.platform = ANY($5::text[])) THEN $15::text
      WHEN i.permission = $22::text THEN $16::text
      WHEN i.invalidated_at IS NOT NULL THEN $17::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN $18::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.installation_id = ANY($23::text[])
),
targets AS (
  SELECT c.*, COALESCE(z.due, $10::timestamptz) AS due
  FROM chosen c LEFT JOIN unnest($8::text[], $9::timestamptz[]) AS z(zone, due) ON z.zone = c.zone
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
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at)
  SELECT $2, n.id, (SELECT processing_started_at FROM notifications WHERE id = $2), n.platform, n.user_id, COALESCE($6 + g.first_batch + n.local_batch, -1),
    CASE WHEN n.skip_reason IS NOT NULL THEN $19::text WHEN n.due > now() THEN $20::text ELSE $21::text END,
    n.skip_reason, n.due, CASE WHEN n.skip_reason IS NULL AND n.due > now() THEN n.due END
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due
  ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING
  RETURNING status, batch, next_attempt_at, platform, reason
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT $2::uuid, status FROM inserted WHERE status = $19::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
)
SELECT
  (SELECT count(*) FROM chosen)::int AS found,
  (SELECT max(installation_id) FROM chosen) AS last_installation_id,
  (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
  (SELECT count(*) FROM inserted)::int AS installations,
  (SELECT count(*) FROM inserted WHERE status = $19::text)::int AS skipped,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = $19::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted WHERE status <> $19::text GROUP BY batch) b) AS batches;

UPDATE notifications SET fanout_position = fanout_position + $2, fanout_batches = fanout_batches + $3,
  stat_users = stat_users + $4, stat_installations = stat_installations + $5, stat_skipped = stat_skipped + $6,
  fanout_cursor = COALESCE($7, fanout_cursor)
WHERE id = $1;

-- FanOutRepository.nextChunk (tags)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.tags && $2::text[] AND i.installation_id > $3::text ORDER BY i.installation_id LIMIT $4) z
WHERE zone IS NOT NULL;

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN $7::boolean THEN $12::text
      WHEN NOT (i.platform = ANY($4::text[])) THEN $13::text
      WHEN i.platform = ANY($11::text[]) THEN $14::text
      WHEN NOT (i.platform = ANY($5::text[])) THEN $15::text
      WHEN i.permission = $22::text THEN $16::text
      WHEN i.invalidated_at IS NOT NULL THEN $17::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN $18::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.tags && $23::text[] AND i.installation_id > $24::text ORDER BY i.installation_id LIMIT $25
),
targets AS (
  SELECT c.*, COALESCE(z.due, $10::timestamptz) AS due
  FROM chosen c LEFT JOIN unnest($8::text[], $9::timestamptz[]) AS z(zone, due) ON z.zone = c.zone
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
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at)
  SELECT $2, n.id, (SELECT processing_started_at FROM notifications WHERE id = $2), n.platform, n.user_id, COALESCE($6 + g.first_batch + n.local_batch, -1),
    CASE WHEN n.skip_reason IS NOT NULL THEN $19::text WHEN n.due > now() THEN $20::text ELSE $21::text END,
    n.skip_reason, n.due, CASE WHEN n.skip_reason IS NULL AND n.due > now() THEN n.due END
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due
  ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING
  RETURNING status, batch, next_attempt_at, platform, reason
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT $2::uuid, status FROM inserted WHERE status = $19::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
)
SELECT
  (SELECT count(*) FROM chosen)::int AS found,
  (SELECT max(installation_id) FROM chosen) AS last_installation_id,
  (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
  (SELECT count(*) FROM inserted)::int AS installations,
  (SELECT count(*) FROM inserted WHERE status = $19::text)::int AS skipped,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = $19::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted WHERE status <> $19::text GROUP BY batch) b) AS batches;

UPDATE notifications SET fanout_position = fanout_position + $2, fanout_batches = fanout_batches + $3,
  stat_users = stat_users + $4, stat_installations = stat_installations + $5, stat_skipped = stat_skipped + $6,
  fanout_cursor = COALESCE($7, fanout_cursor)
WHERE id = $1;

-- FanOutRepository.nextChunk (filter)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i WHERE i.app_id = $1 AND i.deleted_at IS NULL AND ((i.platform = ANY($4::text[])) AND (i.properties @> $5::jsonb) AND (app_version_key(i.device ->> 'app_version') >= $6::integer[]) AND (i.last_seen_at >= $7::timestamptz) AND ((i.tags @> ARRAY[$8::text]) OR (lower(substring(i.device ->> 'locale' FROM '^[A-Za-z]+')) <> $9::text) IS NOT TRUE)) AND i.installation_id > $2::text ORDER BY i.installation_id LIMIT $3) z
WHERE zone IS NOT NULL;

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN $7::boolean THEN $12::text
      WHEN NOT (i.platform = ANY($4::text[])) THEN $13::text
      WHEN i.platform = ANY($11::text[]) THEN $14::text
      WHEN NOT (i.platform = ANY($5::text[])) THEN $15::text
      WHEN i.permission = $22::text THEN $16::text
      WHEN i.invalidated_at IS NOT NULL THEN $17::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN $18::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = $1 AND i.deleted_at IS NULL AND ((i.platform = ANY($25::text[])) AND (i.properties @> $26::jsonb) AND (app_version_key(i.device ->> 'app_version') >= $27::integer[]) AND (i.last_seen_at >= $28::timestamptz) AND ((i.tags @> ARRAY[$29::text]) OR (lower(substring(i.device ->> 'locale' FROM '^[A-Za-z]+')) <> $30::text) IS NOT TRUE)) AND i.installation_id > $23::text ORDER BY i.installation_id LIMIT $24
),
targets AS (
  SELECT c.*, COALESCE(z.due, $10::timestamptz) AS due
  FROM chosen c LEFT JOIN unnest($8::text[], $9::timestamptz[]) AS z(zone, due) ON z.zone = c.zone
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
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at)
  SELECT $2, n.id, (SELECT processing_started_at FROM notifications WHERE id = $2), n.platform, n.user_id, COALESCE($6 + g.first_batch + n.local_batch, -1),
    CASE WHEN n.skip_reason IS NOT NULL THEN $19::text WHEN n.due > now() THEN $20::text ELSE $21::text END,
    n.skip_reason, n.due, CASE WHEN n.skip_reason IS NULL AND n.due > now() THEN n.due END
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due
  ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING
  RETURNING status, batch, next_attempt_at, platform, reason
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT $2::uuid, status FROM inserted WHERE status = $19::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
)
SELECT
  (SELECT count(*) FROM chosen)::int AS found,
  (SELECT max(installation_id) FROM chosen) AS last_installation_id,
  (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
  (SELECT count(*) FROM inserted)::int AS installations,
  (SELECT count(*) FROM inserted WHERE status = $19::text)::int AS skipped,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = $19::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted WHERE status <> $19::text GROUP BY batch) b) AS batches;

UPDATE notifications SET fanout_position = fanout_position + $2, fanout_batches = fanout_batches + $3,
  stat_users = stat_users + $4, stat_installations = stat_installations + $5, stat_skipped = stat_skipped + $6,
  fanout_cursor = COALESCE($7, fanout_cursor)
WHERE id = $1;

-- FanOutRepository.nextChunk (all)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

SELECT DISTINCT zone FROM (SELECT i.device ->> 'timezone' AS zone FROM installations i WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.installation_id > $2::text ORDER BY i.installation_id LIMIT $3) z
WHERE zone IS NOT NULL;

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN $7::boolean THEN $12::text
      WHEN NOT (i.platform = ANY($4::text[])) THEN $13::text
      WHEN i.platform = ANY($11::text[]) THEN $14::text
      WHEN NOT (i.platform = ANY($5::text[])) THEN $15::text
      WHEN i.permission = $22::text THEN $16::text
      WHEN i.invalidated_at IS NOT NULL THEN $17::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN $18::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.installation_id > $23::text ORDER BY i.installation_id LIMIT $24
),
targets AS (
  SELECT c.*, COALESCE(z.due, $10::timestamptz) AS due
  FROM chosen c LEFT JOIN unnest($8::text[], $9::timestamptz[]) AS z(zone, due) ON z.zone = c.zone
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
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at)
  SELECT $2, n.id, (SELECT processing_started_at FROM notifications WHERE id = $2), n.platform, n.user_id, COALESCE($6 + g.first_batch + n.local_batch, -1),
    CASE WHEN n.skip_reason IS NOT NULL THEN $19::text WHEN n.due > now() THEN $20::text ELSE $21::text END,
    n.skip_reason, n.due, CASE WHEN n.skip_reason IS NULL AND n.due > now() THEN n.due END
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due
  ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING
  RETURNING status, batch, next_attempt_at, platform, reason
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT $2::uuid, status FROM inserted WHERE status = $19::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
)
SELECT
  (SELECT count(*) FROM chosen)::int AS found,
  (SELECT max(installation_id) FROM chosen) AS last_installation_id,
  (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
  (SELECT count(*) FROM inserted)::int AS installations,
  (SELECT count(*) FROM inserted WHERE status = $19::text)::int AS skipped,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = $19::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted WHERE status <> $19::text GROUP BY batch) b) AS batches;

UPDATE notifications SET fanout_position = fanout_position + $2, fanout_batches = fanout_batches + $3,
  stat_users = stat_users + $4, stat_installations = stat_installations + $5, stat_skipped = stat_skipped + $6,
  fanout_cursor = COALESCE($7, fanout_cursor)
WHERE id = $1;

-- FanOutRepository.nextChunk, the last (user_ids)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

UPDATE notifications SET fanned_out_at = now() WHERE id = $1;

-- FanOutRepository.nextChunk, the last (installation_ids)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

UPDATE notifications SET fanned_out_at = now(), target_users = u.n, stat_users = u.n
FROM (SELECT count(DISTINCT i.user_id)::int AS n FROM deliveries d JOIN installations i ON i.id = d.installation_id
      WHERE d.notification_id = $1) u
WHERE id = $1;

-- FanOutRepository.nextChunk, the last (tags)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN $7::boolean THEN $12::text
      WHEN NOT (i.platform = ANY($4::text[])) THEN $13::text
      WHEN i.platform = ANY($11::text[]) THEN $14::text
      WHEN NOT (i.platform = ANY($5::text[])) THEN $15::text
      WHEN i.permission = $22::text THEN $16::text
      WHEN i.invalidated_at IS NOT NULL THEN $17::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN $18::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.tags && $23::text[] AND i.installation_id > $24::text ORDER BY i.installation_id LIMIT $25
),
targets AS (
  SELECT c.*, COALESCE(z.due, $10::timestamptz) AS due
  FROM chosen c LEFT JOIN unnest($8::text[], $9::timestamptz[]) AS z(zone, due) ON z.zone = c.zone
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
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at)
  SELECT $2, n.id, (SELECT processing_started_at FROM notifications WHERE id = $2), n.platform, n.user_id, COALESCE($6 + g.first_batch + n.local_batch, -1),
    CASE WHEN n.skip_reason IS NOT NULL THEN $19::text WHEN n.due > now() THEN $20::text ELSE $21::text END,
    n.skip_reason, n.due, CASE WHEN n.skip_reason IS NULL AND n.due > now() THEN n.due END
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due
  ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING
  RETURNING status, batch, next_attempt_at, platform, reason
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT $2::uuid, status FROM inserted WHERE status = $19::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
)
SELECT
  (SELECT count(*) FROM chosen)::int AS found,
  (SELECT max(installation_id) FROM chosen) AS last_installation_id,
  (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
  (SELECT count(*) FROM inserted)::int AS installations,
  (SELECT count(*) FROM inserted WHERE status = $19::text)::int AS skipped,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = $19::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted WHERE status <> $19::text GROUP BY batch) b) AS batches;

UPDATE notifications SET fanned_out_at = now(), target_users = u.n, stat_users = u.n
FROM (SELECT count(DISTINCT i.user_id)::int AS n FROM deliveries d JOIN installations i ON i.id = d.installation_id
      WHERE d.notification_id = $1) u
WHERE id = $1;

-- FanOutRepository.nextChunk, the last (filter)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN $7::boolean THEN $12::text
      WHEN NOT (i.platform = ANY($4::text[])) THEN $13::text
      WHEN i.platform = ANY($11::text[]) THEN $14::text
      WHEN NOT (i.platform = ANY($5::text[])) THEN $15::text
      WHEN i.permission = $22::text THEN $16::text
      WHEN i.invalidated_at IS NOT NULL THEN $17::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN $18::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = $1 AND i.deleted_at IS NULL AND ((i.platform = ANY($25::text[])) AND (i.properties @> $26::jsonb) AND (app_version_key(i.device ->> 'app_version') >= $27::integer[]) AND (i.last_seen_at >= $28::timestamptz) AND ((i.tags @> ARRAY[$29::text]) OR (lower(substring(i.device ->> 'locale' FROM '^[A-Za-z]+')) <> $30::text) IS NOT TRUE)) AND i.installation_id > $23::text ORDER BY i.installation_id LIMIT $24
),
targets AS (
  SELECT c.*, COALESCE(z.due, $10::timestamptz) AS due
  FROM chosen c LEFT JOIN unnest($8::text[], $9::timestamptz[]) AS z(zone, due) ON z.zone = c.zone
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
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at)
  SELECT $2, n.id, (SELECT processing_started_at FROM notifications WHERE id = $2), n.platform, n.user_id, COALESCE($6 + g.first_batch + n.local_batch, -1),
    CASE WHEN n.skip_reason IS NOT NULL THEN $19::text WHEN n.due > now() THEN $20::text ELSE $21::text END,
    n.skip_reason, n.due, CASE WHEN n.skip_reason IS NULL AND n.due > now() THEN n.due END
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due
  ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING
  RETURNING status, batch, next_attempt_at, platform, reason
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT $2::uuid, status FROM inserted WHERE status = $19::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
)
SELECT
  (SELECT count(*) FROM chosen)::int AS found,
  (SELECT max(installation_id) FROM chosen) AS last_installation_id,
  (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
  (SELECT count(*) FROM inserted)::int AS installations,
  (SELECT count(*) FROM inserted WHERE status = $19::text)::int AS skipped,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = $19::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted WHERE status <> $19::text GROUP BY batch) b) AS batches;

UPDATE notifications SET fanned_out_at = now(), target_users = u.n, stat_users = u.n
FROM (SELECT count(DISTINCT i.user_id)::int AS n FROM deliveries d JOIN installations i ON i.id = d.installation_id
      WHERE d.notification_id = $1) u
WHERE id = $1;

-- FanOutRepository.nextChunk, the last (all)
SELECT recipient_kind AS kind, fanout_position AS position, fanout_batches AS batches, fanned_out_at,
  fanout_cursor AS cursor, canceled_at IS NOT NULL AS canceled, tags, recipient_filter AS filter, processing_started_at AS started_at,
  CASE recipient_kind
    WHEN $3::text THEN user_ids[fanout_position + 1 : fanout_position + $2]
    WHEN $4::text THEN installation_ids[fanout_position + 1 : fanout_position + $2]
  END AS ids
FROM notifications WHERE id = $1 FOR UPDATE;

WITH chosen AS (
  SELECT i.id, i.user_id, i.platform, i.installation_id, i.device ->> 'timezone' AS zone,
    CASE
      WHEN $7::boolean THEN $12::text
      WHEN NOT (i.platform = ANY($4::text[])) THEN $13::text
      WHEN i.platform = ANY($11::text[]) THEN $14::text
      WHEN NOT (i.platform = ANY($5::text[])) THEN $15::text
      WHEN i.permission = $22::text THEN $16::text
      WHEN i.invalidated_at IS NOT NULL THEN $17::text
      WHEN i.push_token IS NULL AND i.web_push_subscription IS NULL THEN $18::text
    END AS skip_reason
  FROM installations i
  WHERE i.app_id = $1 AND i.deleted_at IS NULL AND i.installation_id > $23::text ORDER BY i.installation_id LIMIT $24
),
targets AS (
  SELECT c.*, COALESCE(z.due, $10::timestamptz) AS due
  FROM chosen c LEFT JOIN unnest($8::text[], $9::timestamptz[]) AS z(zone, due) ON z.zone = c.zone
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
inserted AS (
  INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, scheduled_for, next_attempt_at)
  SELECT $2, n.id, (SELECT processing_started_at FROM notifications WHERE id = $2), n.platform, n.user_id, COALESCE($6 + g.first_batch + n.local_batch, -1),
    CASE WHEN n.skip_reason IS NOT NULL THEN $19::text WHEN n.due > now() THEN $20::text ELSE $21::text END,
    n.skip_reason, n.due, CASE WHEN n.skip_reason IS NULL AND n.due > now() THEN n.due END
  FROM numbered n LEFT JOIN group_offsets g ON n.skip_reason IS NULL AND g.due IS NOT DISTINCT FROM n.due
  ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING
  RETURNING status, batch, next_attempt_at, platform, reason
),
per_minute AS (
  INSERT INTO delivery_minutes AS m (notification_id, minute, outcome, count)
  SELECT notification_id, date_trunc('minute', now()), status, count(*)::int
  FROM (SELECT $2::uuid, status FROM inserted WHERE status = $19::text) AS o(notification_id, status) GROUP BY notification_id, status
  ORDER BY notification_id, status
  ON CONFLICT (notification_id, minute, outcome) DO UPDATE SET count = m.count + EXCLUDED.count
)
SELECT
  (SELECT count(*) FROM chosen)::int AS found,
  (SELECT max(installation_id) FROM chosen) AS last_installation_id,
  (SELECT count(DISTINCT user_id) FROM chosen)::int AS users,
  (SELECT count(*) FROM inserted)::int AS installations,
  (SELECT count(*) FROM inserted WHERE status = $19::text)::int AS skipped,
  (SELECT COALESCE(jsonb_agg(s), '[]'::jsonb) FROM (
     SELECT platform, reason, count(*)::int AS count FROM inserted WHERE status = $19::text GROUP BY platform, reason) s) AS skipped_by_reason,
  (SELECT COALESCE(sum(batches), 0) FROM due_groups)::int AS batches_used,
  (SELECT COALESCE(json_agg(json_build_object('batch', batch, 'due', due)), '[]')
     FROM (SELECT batch, max(next_attempt_at) AS due FROM inserted WHERE status <> $19::text GROUP BY batch) b) AS batches;

UPDATE notifications SET fanned_out_at = now(), target_users = u.n, stat_users = u.n
FROM (SELECT count(DISTINCT i.user_id)::int AS n FROM deliveries d JOIN installations i ON i.id = d.installation_id
      WHERE d.notification_id = $1) u
WHERE id = $1;
