import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { Cluster, Redis } from 'ioredis';
import { EnvironmentVariables } from '../config/env';
import { redisConnectionOptions } from '../config/redis-options';
import { createRedisClient } from '../queue/redis-client';
import { redisStatus } from '../queue/redis-status';

/**
 * One atomic step of a fixed-window counter with blocking, so that every api process sharing
 * the Redis sees the same count. KEYS[1] counts hits in the current window; KEYS[2] exists
 * while the tracker is blocked. ARGV: window ms, limit, block ms. Returns
 * {hits, window ms left, blocked (0/1), block ms left}.
 */
const INCREMENT_SCRIPT = `
local blockLeft = redis.call('PTTL', KEYS[2])
if blockLeft > 0 then
  return {tonumber(ARGV[2]) + 1, blockLeft, 1, blockLeft}
end
local hits = redis.call('INCR', KEYS[1])
local windowLeft = redis.call('PTTL', KEYS[1])
if windowLeft < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  windowLeft = tonumber(ARGV[1])
end
if hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  -- The block replaces the window: once it ends, the tracker starts a fresh one.
  redis.call('DEL', KEYS[1])
  return {hits, tonumber(ARGV[3]), 1, tonumber(ARGV[3])}
end
return {hits, windowLeft, 0, 0}
`;

const CONNECT_TIMEOUT_MS = 2_000;
/** At most one "Redis unavailable" warning per this interval, however many requests pass. */
const WARN_INTERVAL_MS = 60_000;

type IncrementReply = [number, number, number, number];
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;
type ThrottleRedis = (Redis | Cluster) & {
  throttleIncrement(hitsKey: string, blockKey: string, windowMs: number, limit: number, blockMs: number): Promise<IncrementReply>;
};

/**
 * @nestjs/throttler storage on Redis (ioredis + one Lua script), keys under
 * `<QUEUE_PREFIX>:ratelimit:`. Written here because the community Redis storage does not
 * support Nest 12. When Redis does not answer, requests are let through: the API keeps
 * accepting sends while Redis is down (the sweeper queues them later), and a rate limiter must
 * not be the one thing that turns a Redis outage into an API outage.
 */
@Injectable()
export class RedisThrottlerStorage implements ThrottlerStorage, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private readonly redis: ThrottleRedis;
  private readonly prefix: string;
  private lastWarning = 0;
  private connecting?: Promise<void>;
  private closing?: Promise<void>;

  constructor(private readonly config: EnvironmentVariables) {
    this.prefix = `${config.QUEUE_PREFIX}:ratelimit`;
    // On a Redis Cluster both keys of a tracker share QUEUE_PREFIX's {hash tag}, hence one slot,
    // as the script's two keys must.
    this.redis = createRedisClient({
      ...redisConnectionOptions(config),
      // Fail fast instead of queueing commands while disconnected: the request must not wait.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: CONNECT_TIMEOUT_MS,
      lazyConnect: true,
    }) as ThrottleRedis;
    this.redis.defineCommand('throttleIncrement', { numberOfKeys: 2, lua: INCREMENT_SCRIPT });
    // ioredis reconnects by itself; without a listener an error event would crash the process.
    // redisStatus turns the errors of every Redis client of the process into one line per interval.
    this.redis.on('error', (error: Error) => redisStatus.down(error));
    this.redis.on('ready', () => redisStatus.up());
  }

  /**
   * Connects before the first request, so the first requests are counted too. This hook and the
   * next are idempotent: Nest calls them twice, since this one object is both the
   * RedisThrottlerStorage provider and the library's ThrottlerStorage provider (options.storage).
   */
  onModuleInit(): Promise<void> {
    // The operator dashboard's failed-login limit (admin/admin-sessions.service.ts) uses it too.
    const adminOn = Boolean(this.config.ADMIN_USER && this.config.ADMIN_PASSWORD);
    if (this.config.RATE_LIMIT_PER_MINUTE === 0 && !adminOn) return Promise.resolve();
    this.connecting ??= this.redis.connect().catch((error: Error) => redisStatus.down(error));
    return this.connecting;
  }

  onModuleDestroy(): Promise<void> {
    this.closing ??= this.redis.quit().then(
      () => undefined,
      () => this.redis.disconnect(),
    );
    return this.closing;
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const base = `${this.prefix}:${throttlerName}:${key}`;
    try {
      const [hits, windowLeftMs, blocked, blockLeftMs] = await this.redis.throttleIncrement(
        `${base}:hits`,
        `${base}:block`,
        ttl,
        limit,
        Math.max(blockDuration, 1),
      );
      return {
        totalHits: hits,
        timeToExpire: Math.ceil(windowLeftMs / 1000),
        isBlocked: blocked === 1,
        timeToBlockExpire: Math.ceil(blockLeftMs / 1000),
      };
    } catch (error) {
      this.warn(`Rate limit not enforced, Redis did not answer: ${(error as Error).message}`);
      return { totalHits: 0, timeToExpire: Math.ceil(ttl / 1000), isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  /**
   * Milliseconds the tracker stays blocked (0: not blocked), without counting a hit: a login is
   * refused while blocked even with the right password, so guessing gains nothing meanwhile.
   * When Redis does not answer, not blocked (as `increment` lets requests through).
   */
  async blockedFor(key: string, throttlerName: string): Promise<number> {
    try {
      return Math.max(0, await this.redis.pttl(`${this.prefix}:${throttlerName}:${key}:block`));
    } catch (error) {
      this.warn(`Rate limit not enforced, Redis did not answer: ${(error as Error).message}`);
      return 0;
    }
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_INTERVAL_MS) return;
    this.lastWarning = now;
    this.logger.warn(message);
  }
}
