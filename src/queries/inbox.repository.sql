-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/inbox/inbox.repository.ts; do not edit.

-- InboxRepository.list (inbox)
SELECT id, notification_id, user_id, title, body, image_url, action_url, data, topic, created_at, read_at, archived_at, expires_at, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_at_micros FROM inbox_messages
WHERE app_id = :app_id AND user_id = :user_id AND expires_at > now() AND archived_at IS NULL AND (:after_micros::bigint IS NULL OR (created_at, id) < ('epoch'::timestamptz + :after_micros::bigint * interval '1 microsecond', :after_id::uuid))
ORDER BY created_at DESC, id DESC LIMIT :limit;

-- InboxRepository.list (unread, after a cursor)
SELECT id, notification_id, user_id, title, body, image_url, action_url, data, topic, created_at, read_at, archived_at, expires_at, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_at_micros FROM inbox_messages
WHERE app_id = :app_id AND user_id = :user_id AND expires_at > now() AND read_at IS NULL AND archived_at IS NULL AND (:after_micros::bigint IS NULL OR (created_at, id) < ('epoch'::timestamptz + :after_micros::bigint * interval '1 microsecond', :after_id::uuid))
ORDER BY created_at DESC, id DESC LIMIT :limit;

-- InboxRepository.list (read)
SELECT id, notification_id, user_id, title, body, image_url, action_url, data, topic, created_at, read_at, archived_at, expires_at, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_at_micros FROM inbox_messages
WHERE app_id = :app_id AND user_id = :user_id AND expires_at > now() AND read_at IS NOT NULL AND archived_at IS NULL AND (:after_micros::bigint IS NULL OR (created_at, id) < ('epoch'::timestamptz + :after_micros::bigint * interval '1 microsecond', :after_id::uuid))
ORDER BY created_at DESC, id DESC LIMIT :limit;

-- InboxRepository.list (archived)
SELECT id, notification_id, user_id, title, body, image_url, action_url, data, topic, created_at, read_at, archived_at, expires_at, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_at_micros FROM inbox_messages
WHERE app_id = :app_id AND user_id = :user_id AND expires_at > now() AND archived_at IS NOT NULL AND (:after_micros::bigint IS NULL OR (created_at, id) < ('epoch'::timestamptz + :after_micros::bigint * interval '1 microsecond', :after_id::uuid))
ORDER BY created_at DESC, id DESC LIMIT :limit;

-- InboxRepository.list (all)
SELECT id, notification_id, user_id, title, body, image_url, action_url, data, topic, created_at, read_at, archived_at, expires_at, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_at_micros FROM inbox_messages
WHERE app_id = :app_id AND user_id = :user_id AND expires_at > now() AND true AND (:after_micros::bigint IS NULL OR (created_at, id) < ('epoch'::timestamptz + :after_micros::bigint * interval '1 microsecond', :after_id::uuid))
ORDER BY created_at DESC, id DESC LIMIT :limit;

-- InboxRepository.unread
SELECT count(*)::int AS n FROM (SELECT 1 FROM inbox_messages WHERE app_id = :app_id AND user_id = :user_id AND expires_at > now() AND read_at IS NULL AND archived_at IS NULL
ORDER BY created_at DESC, id DESC LIMIT :cap) m;

-- InboxRepository.mark
WITH before AS (
  SELECT id, read_at IS NOT NULL AS read_before FROM inbox_messages WHERE id = :id AND app_id = :app_id AND user_id = :user_id AND expires_at > now() FOR UPDATE
), changed AS (
  UPDATE inbox_messages m SET
    read_at = CASE WHEN :read::boolean IS NULL THEN m.read_at WHEN :read::boolean THEN COALESCE(m.read_at, now()) END,
    archived_at = CASE WHEN :archived::boolean IS NULL THEN m.archived_at WHEN :archived::boolean THEN COALESCE(m.archived_at, now()) END
  FROM before b WHERE m.id = b.id
  RETURNING m.*, b.read_before, m.read_at IS NOT NULL AS read_now
), counted AS (
  UPDATE notifications n SET stat_inbox_read = n.stat_inbox_read + d.delta
  FROM (SELECT notification_id, sum(CASE WHEN read_now THEN 1 ELSE -1 END)::int AS delta FROM changed
        WHERE read_now IS DISTINCT FROM read_before GROUP BY notification_id) d
  WHERE n.id = d.notification_id AND d.delta <> 0
), reported AS (
  INSERT INTO webhook_messages (webhook_id, type, subject_id)
  SELECT w.id, 'inbox.read', s.subject_id FROM (SELECT :app_id::uuid, id FROM changed WHERE read_now AND NOT read_before) AS s(app_id, subject_id)
  JOIN webhooks w ON w.app_id = s.app_id AND 'inbox.read' = ANY (w.events)
), notified AS (SELECT pg_notify('inbox_messages', json_build_object('app_id', :app_id::text, 'user_id', :user_id::text)::text))
SELECT id, notification_id, user_id, title, body, image_url, action_url, data, topic, created_at, read_at, archived_at, expires_at, (SELECT count(*) FROM notified)::int AS notified FROM changed;

-- InboxRepository.readAll
WITH changed AS (
  UPDATE inbox_messages SET read_at = now() WHERE app_id = :app_id AND user_id = :user_id AND expires_at > now() AND read_at IS NULL AND archived_at IS NULL
  RETURNING id, notification_id, false AS read_before, true AS read_now
), counted AS (
  UPDATE notifications n SET stat_inbox_read = n.stat_inbox_read + d.delta
  FROM (SELECT notification_id, sum(CASE WHEN read_now THEN 1 ELSE -1 END)::int AS delta FROM changed
        WHERE read_now IS DISTINCT FROM read_before GROUP BY notification_id) d
  WHERE n.id = d.notification_id AND d.delta <> 0
), reported AS (
  INSERT INTO webhook_messages (webhook_id, type, subject_id)
  SELECT w.id, 'inbox.read', s.subject_id FROM (SELECT :app_id::uuid, id FROM changed WHERE read_now AND NOT read_before) AS s(app_id, subject_id)
  JOIN webhooks w ON w.app_id = s.app_id AND 'inbox.read' = ANY (w.events)
), notified AS (SELECT pg_notify('inbox_messages', json_build_object('app_id', :app_id::text, 'user_id', :user_id::text)::text))
SELECT (SELECT count(*) FROM changed)::int AS updated, (SELECT count(*) FROM notified)::int AS notified;

-- InboxRepository.newest
SELECT id FROM inbox_messages WHERE app_id = :app_id AND user_id = :user_id AND expires_at > now() ORDER BY created_at DESC, id DESC LIMIT 1;

-- InboxRepository.unreadOf
SELECT u.user_id, c.unread FROM unnest(:user_ids::text[]) AS u(user_id)
CROSS JOIN LATERAL (SELECT count(*)::int AS unread FROM (SELECT 1 FROM inbox_messages
  WHERE app_id = :app_id AND user_id = u.user_id AND expires_at > now() AND read_at IS NULL AND archived_at IS NULL
  ORDER BY created_at DESC, id DESC LIMIT :cap) m) c
WHERE c.unread > 0;

-- InboxRepository.since
SELECT id, notification_id, user_id, title, body, image_url, action_url, data, topic, created_at, read_at, archived_at, expires_at FROM inbox_messages
WHERE app_id = :app_id AND user_id = :user_id AND expires_at > now() AND (:last_id::uuid IS NULL OR (created_at, id) > (SELECT created_at, id FROM inbox_messages WHERE id = :last_id AND app_id = :app_id AND user_id = :user_id AND expires_at > now()))
ORDER BY created_at, id LIMIT :limit;

-- InboxRepository.ofNotification
SELECT id, notification_id, user_id, title, body, image_url, action_url, data, topic, created_at, read_at, archived_at, expires_at FROM inbox_messages
WHERE notification_id = :notification_id AND user_id = ANY(:user_ids::text[]) AND app_id = :app_id AND expires_at > now();
