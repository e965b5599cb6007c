-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/delivery/retention/retention.repository.ts; do not edit.

-- RetentionRepository.partitions
SELECT c.relname AS name,
  (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']*)''\)'))[1]::timestamptz AS "from",
  (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']*)''\)'))[1]::timestamptz AS "to"
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = $1::regclass
ORDER BY 3;

-- RetentionRepository.createPartition
SET LOCAL lock_timeout = '1s';

CREATE TABLE IF NOT EXISTS "deliveries_p20260105" PARTITION OF "deliveries"
FOR VALUES FROM ('2026-01-05T00:00:00.000Z') TO ('2026-01-12T00:00:00.000Z') WITH (fillfactor = 50);

-- RetentionRepository.weekHolds
SELECT count(*)::int AS notifications,
  count(*) FILTER (WHERE completed_at IS NULL OR completed_at >= $3)::int AS held
FROM notifications WHERE ($1::timestamptz IS NULL OR processing_started_at >= $1) AND processing_started_at < $2;

-- RetentionRepository.dropWeek
SET LOCAL lock_timeout = '1s';

SELECT relname, greatest(reltuples, 0)::bigint::int AS rows FROM pg_class WHERE relname = ANY($1::text[]);

DROP TABLE IF EXISTS "deliveries_p20260105";

DROP TABLE IF EXISTS "notification_events_p20260105";

SELECT count(*)::int AS notifications,
  count(*) FILTER (WHERE completed_at IS NULL OR completed_at >= $3)::int AS held
FROM notifications WHERE ($1::timestamptz IS NULL OR processing_started_at >= $1) AND processing_started_at < $2;

-- RetentionRepository.deleteUncovered
DELETE FROM notifications n
WHERE n.processing_started_at < $1 AND n.completed_at < $1
  AND NOT EXISTS (
    SELECT 1 FROM unnest($2::timestamptz[], $3::timestamptz[]) AS p(starts, ends)
    WHERE (p.starts IS NULL OR n.processing_started_at >= p.starts) AND n.processing_started_at < p.ends);

-- RetentionRepository.expiredInWeek
SELECT id FROM notifications WHERE ($1::timestamptz IS NULL OR processing_started_at >= $1) AND processing_started_at < $2 AND completed_at < $3 ORDER BY completed_at LIMIT $4;

-- RetentionRepository.deleteRows
DELETE FROM deliveries t WHERE t.notification_id = $1 AND t.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = $1)
AND t.ctid = ANY (ARRAY(SELECT s.ctid FROM deliveries s WHERE s.notification_id = $1 AND s.notification_started_at = (SELECT processing_started_at FROM notifications WHERE id = $1) LIMIT $2));

-- RetentionRepository.deleteFinishedWebhookMessages
DELETE FROM webhook_messages WHERE id IN (
SELECT id FROM webhook_messages WHERE status <> 'pending' AND finished_at < $1 ORDER BY finished_at LIMIT $2);

-- RetentionRepository.deleteFinishedBroadcasts
DELETE FROM live_activity_broadcasts WHERE ctid = ANY(ARRAY(
SELECT ctid FROM live_activity_broadcasts WHERE status <> $3 AND updated_at < $1 LIMIT $2));

-- RetentionRepository.deleteExpiredInboxMessages
DELETE FROM inbox_messages WHERE id IN (SELECT id FROM inbox_messages WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2);

-- RetentionRepository.deleteAuditEntries
DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < $1 ORDER BY at LIMIT $2);

-- RetentionRepository.deleteMarketingReceipts
DELETE FROM marketing_receipts WHERE ctid = ANY(ARRAY(SELECT ctid FROM marketing_receipts WHERE accepted_at < $1 LIMIT $2));

-- RetentionRepository.deleteNotification
DELETE FROM notifications WHERE id = $1;
