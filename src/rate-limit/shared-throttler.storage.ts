import { Logger } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { RateLimitRepository } from './rate-limit.repository';

export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The @nestjs/throttler storage every api process shares (the per-token limit, the dashboard's
 * failed logins): Redis or PostgreSQL by QUEUE_BACKEND (rate-limit.module.ts). When its store does
 * not answer, requests pass: a rate limiter must not turn an outage of it into an API outage.
 */
export abstract class SharedThrottlerStorage implements ThrottlerStorage {
  abstract increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord>;
  /** Ms the tracker stays blocked, without counting a hit (a login is refused even with the right password); 0 when the store is down. */
  abstract blockedFor(key: string, throttlerName: string): Promise<number>;
}

const WARN_INTERVAL_MS = 60_000;
const PURGE_EVERY_MS = 60_000;

/** Fixed windows with blocking in table rate_limits, keys `<QUEUE_PREFIX>:ratelimit:<throttler>:<tracker>`. */
export class PostgresThrottlerStorage extends SharedThrottlerStorage {
  private readonly logger = new Logger('RateLimit');
  private lastWarning = 0;
  private purgedAt = 0;

  constructor(
    private readonly repository: RateLimitRepository,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const now = this.now();
    try {
      if (now - this.purgedAt >= PURGE_EVERY_MS) {
        this.purgedAt = now;
        await this.repository.purge(now);
      }
      const step = await this.repository.increment(this.key(key, throttlerName), now, ttl, limit, Math.max(blockDuration, 1));
      const blocked = step.blocked_until > now;
      return {
        totalHits: blocked ? Math.max(step.hits, limit + 1) : step.hits,
        timeToExpire: Math.ceil(((blocked ? step.blocked_until : step.window_ends_at) - now) / 1000),
        isBlocked: blocked,
        timeToBlockExpire: blocked ? Math.ceil((step.blocked_until - now) / 1000) : 0,
      };
    } catch (error) {
      this.warn(`Rate limit not enforced, PostgreSQL did not answer: ${(error as Error).message}`);
      return { totalHits: 0, timeToExpire: Math.ceil(ttl / 1000), isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  async blockedFor(key: string, throttlerName: string): Promise<number> {
    try {
      return Math.max(0, (await this.repository.blockedUntil(this.key(key, throttlerName))) - this.now());
    } catch (error) {
      this.warn(`Rate limit not enforced, PostgreSQL did not answer: ${(error as Error).message}`);
      return 0;
    }
  }

  private key(key: string, throttlerName: string): string {
    return `${this.prefix}:ratelimit:${throttlerName}:${key}`;
  }

  private warn(message: string): void {
    const now = this.now();
    if (now - this.lastWarning < WARN_INTERVAL_MS) return;
    this.lastWarning = now;
    this.logger.warn(message);
  }
}
