-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/rate-limit/rate-limit.repository.ts; do not edit.

-- RateLimitRepository.increment
INSERT INTO rate_limits AS r (key, hits, window_ends_at, blocked_until)
VALUES (:key, 1,
  CASE WHEN 1 > :limit::int THEN :now::bigint + :block_ms::bigint ELSE :now::bigint + :window_ms::bigint END,
  CASE WHEN 1 > :limit::int THEN :now::bigint + :block_ms::bigint ELSE 0 END)
ON CONFLICT (key) DO UPDATE SET
  hits = CASE WHEN r.blocked_until > :now::bigint THEN r.hits WHEN r.window_ends_at <= :now::bigint THEN 1 ELSE r.hits + 1 END,
  window_ends_at = CASE
    WHEN r.blocked_until > :now::bigint THEN r.window_ends_at
    WHEN CASE WHEN r.blocked_until > :now::bigint THEN r.hits WHEN r.window_ends_at <= :now::bigint THEN 1 ELSE r.hits + 1 END > :limit::int THEN :now::bigint + :block_ms::bigint
    WHEN r.window_ends_at <= :now::bigint THEN :now::bigint + :window_ms::bigint
    ELSE r.window_ends_at END,
  blocked_until = CASE
    WHEN r.blocked_until > :now::bigint THEN r.blocked_until
    WHEN CASE WHEN r.blocked_until > :now::bigint THEN r.hits WHEN r.window_ends_at <= :now::bigint THEN 1 ELSE r.hits + 1 END > :limit::int THEN :now::bigint + :block_ms::bigint
    ELSE 0 END
RETURNING hits, window_ends_at::float8 AS window_ends_at, blocked_until::float8 AS blocked_until;

-- RateLimitRepository.blockedUntil
SELECT blocked_until::float8 AS blocked_until FROM rate_limits WHERE key = :key;

-- RateLimitRepository.purge
DELETE FROM rate_limits WHERE greatest(window_ends_at, blocked_until) < :now::bigint;
