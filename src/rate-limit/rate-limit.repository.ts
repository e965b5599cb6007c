import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { named } from '../common/sql/named';
import { GenerateSql, SqlFile } from '../queries/generate-sql';

export interface RateLimitStep {
  hits: number;
  /** Epoch ms. */
  window_ends_at: number;
  blocked_until: number;
}

/** While blocked: nothing moves. Else the hit counts in the window, a fresh one once it ended. */
const HITS = `CASE WHEN r.blocked_until > :now::bigint THEN r.hits WHEN r.window_ends_at <= :now::bigint THEN 1 ELSE r.hits + 1 END`;

/**
 * One fixed-window step with blocking, as redis-throttler.storage.ts's script: past `limit` hits
 * the key is blocked for `block_ms` and its window ends with the block, so a fresh one starts after.
 */
const INCREMENT = `INSERT INTO rate_limits AS r (key, hits, window_ends_at, blocked_until)
  VALUES (:key, 1,
    CASE WHEN 1 > :limit::int THEN :now::bigint + :block_ms::bigint ELSE :now::bigint + :window_ms::bigint END,
    CASE WHEN 1 > :limit::int THEN :now::bigint + :block_ms::bigint ELSE 0 END)
  ON CONFLICT (key) DO UPDATE SET
    hits = ${HITS},
    window_ends_at = CASE
      WHEN r.blocked_until > :now::bigint THEN r.window_ends_at
      WHEN ${HITS} > :limit::int THEN :now::bigint + :block_ms::bigint
      WHEN r.window_ends_at <= :now::bigint THEN :now::bigint + :window_ms::bigint
      ELSE r.window_ends_at END,
    blocked_until = CASE
      WHEN r.blocked_until > :now::bigint THEN r.blocked_until
      WHEN ${HITS} > :limit::int THEN :now::bigint + :block_ms::bigint
      ELSE 0 END
  RETURNING hits, window_ends_at::float8 AS window_ends_at, blocked_until::float8 AS blocked_until`;

const BLOCKED_UNTIL = `SELECT blocked_until::float8 AS blocked_until FROM rate_limits WHERE key = :key`;

const PURGE = `DELETE FROM rate_limits WHERE greatest(window_ends_at, blocked_until) < :now::bigint`;

/** Rate limits on PostgreSQL (QUEUE_BACKEND=postgres): one row per tracker and throttler, table rate_limits. */
@SqlFile('rate-limit.repository.sql')
@Injectable()
export class RateLimitRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @GenerateSql({
    params: ['pns:ratelimit:default:token:1', 1_700_000_000_000, 60_000, 100, 60_000],
    answers: [[{ hits: 1, window_ends_at: 1_700_000_060_000, blocked_until: 0 }]],
  })
  async increment(key: string, now: number, windowMs: number, limit: number, blockMs: number): Promise<RateLimitStep> {
    const q = named(INCREMENT, { key, now, window_ms: windowMs, limit, block_ms: blockMs });
    const [row] = await this.db.query<RateLimitStep[]>(q.text, q.values);
    return row;
  }

  /** Epoch ms the key is blocked until; 0 when it is not. */
  @GenerateSql({ params: ['pns:ratelimit:admin-login:10.0.0.1'] })
  async blockedUntil(key: string): Promise<number> {
    const q = named(BLOCKED_UNTIL, { key });
    const [row] = await this.db.query<{ blocked_until: number }[]>(q.text, q.values);
    return row?.blocked_until ?? 0;
  }

  /** Drops the keys whose window and block have both ended. */
  @GenerateSql({ params: [1_700_000_000_000] })
  async purge(now: number): Promise<void> {
    const q = named(PURGE, { now });
    await this.db.query(q.text, q.values);
  }
}
