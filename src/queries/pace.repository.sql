-- Written by `npm run sql:sync` (src/queries/sync-sql.ts) from the @GenerateSql cases of src/queue/pace.repository.ts; do not edit.

-- PaceRepository.take
INSERT INTO pace_turns AS p (key, used_until, expires_at)
VALUES (:key, :now::float8 + :share::float8, :now::float8 + :share::float8 + 3600000)
ON CONFLICT (key) DO UPDATE
  SET used_until = greatest(p.used_until, :now::float8) + :share::float8,
      expires_at = greatest(p.used_until, :now::float8) + :share::float8 + 3600000
RETURNING ceil(greatest(used_until - 1.5 * :share::float8, :now::float8) - :now::float8)::int AS wait_ms;

-- PaceRepository.giveBack
UPDATE pace_turns SET used_until = used_until - :ms::float8 WHERE key = :key;

-- PaceRepository.purge
DELETE FROM pace_turns WHERE expires_at < :now::float8;
