-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/topics/preferences.repository.ts; do not edit.

-- PreferencesRepository.read
SELECT
(SELECT COALESCE(json_agg(json_build_object('key', t.key, 'default_subscribed', t.default_subscribed, 'subscribed', s.subscribed) ORDER BY t.key), '[]')
   FROM topics t
   LEFT JOIN topic_subscriptions s ON s.app_id = t.app_id AND s.topic_key = t.key AND s.user_id = :user_id::text
   WHERE t.app_id = :app_id::uuid) AS topics,
(SELECT json_build_object('push', c.push, 'inbox', c.inbox) FROM user_channel_preferences c
   WHERE c.app_id = :app_id::uuid AND c.user_id = :user_id::text) AS channels;

-- PreferencesRepository.change
WITH chosen AS (
  SELECT c.key, c.subscribed FROM unnest(:topic_keys::text[], :topic_choices::boolean[]) AS c(key, subscribed)
  JOIN topics t ON t.app_id = :app_id::uuid AND t.key = c.key
), subscribed AS (
  INSERT INTO topic_subscriptions (app_id, topic_key, user_id, subscribed)
  SELECT :app_id::uuid, key, :user_id::text, subscribed FROM chosen WHERE subscribed IS NOT NULL
  ON CONFLICT (app_id, topic_key, user_id) DO UPDATE SET subscribed = EXCLUDED.subscribed, updated_at = now()
), defaulted AS (
  DELETE FROM topic_subscriptions s USING chosen c
  WHERE s.app_id = :app_id::uuid AND s.user_id = :user_id::text AND s.topic_key = c.key AND c.subscribed IS NULL
), channels AS (
  INSERT INTO user_channel_preferences (app_id, user_id, push, inbox)
  SELECT :app_id::uuid, :user_id::text, CASE WHEN :set_push::boolean THEN :push::boolean END, CASE WHEN :set_inbox::boolean THEN :inbox::boolean END
  WHERE :set_push::boolean OR :set_inbox::boolean
  ON CONFLICT (app_id, user_id) DO UPDATE SET
    push = CASE WHEN :set_push::boolean THEN EXCLUDED.push ELSE user_channel_preferences.push END,
    inbox = CASE WHEN :set_inbox::boolean THEN EXCLUDED.inbox ELSE user_channel_preferences.inbox END,
    updated_at = now()
)
SELECT 1;
