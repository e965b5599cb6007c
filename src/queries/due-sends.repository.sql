-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/due-sends/due-sends.repository.ts; do not edit.

-- DueSendsRepository.group
WITH ranked AS (
  SELECT id, send_at, created_at, row_number() OVER (PARTITION BY app_id ORDER BY send_at, created_at, id) AS turn
  FROM notifications
  WHERE completed_at IS NULL AND fanned_out_at IS NULL AND processing_started_at IS NULL AND canceled_at IS NULL
    AND send_at <= now()
), picked AS (
  SELECT n.id, r.turn FROM notifications n
  JOIN (SELECT id, turn, send_at, created_at FROM ranked ORDER BY turn, send_at, created_at, id LIMIT $1 * 4) r ON r.id = n.id
  WHERE n.processing_started_at IS NULL AND n.canceled_at IS NULL AND n.fanned_out_at IS NULL
  ORDER BY r.turn, r.send_at, r.created_at, r.id
  LIMIT $1
  FOR UPDATE OF n SKIP LOCKED
), claimed AS (
  UPDATE notifications n SET processing_started_at = now()
  FROM picked WHERE n.id = picked.id
  RETURNING n.id, n.app_id, n.recipient_kind, n.user_ids, n.installation_ids, n.options, n.send_at, n.variants, n.title IS NULL AS silent
)
SELECT c.*, p.turn::int AS turn FROM claimed c JOIN picked p ON p.id = c.id ORDER BY p.turn, c.send_at, c.id;

-- DueSendsRepository.attempt
SAVEPOINT due_send;

RELEASE SAVEPOINT due_send;
