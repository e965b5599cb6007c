import { Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { EnvironmentVariables } from '../config/env';
import { redisConnectionOptions } from '../config/redis-options';
import { createRedisClient } from '../queue/redis-client';
import { redisStatus } from '../queue/redis-status';
import { SharedThrottlerStorage, ThrottlerStorageRecord } from './shared-throttler.storage';

/** One atomic fixed-window step with blocking. KEYS: hits, blocked; ARGV: window ms, limit, block ms; returns {hits, ms left, blocked, block ms left}. */
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
const WARN_INTERVAL_MS = 60_000;

type IncrementReply = [number, number, number, number];
type ThrottleRedis = (Redis | Cluster) & {
  throttleIncrement(hitsKey: string, blockKey: string, windowMs: number, limit: number, blockMs: number): Promise<IncrementReply>;
};

/**
 * @nestjs/throttler storage on Redis (the community one does not support Nest 12), keys under `<QUEUE_PREFIX>:ratelimit:`.
 * When Redis does not answer, requests pass: a rate limiter must not turn a Redis outage into an API outage.
 */
export class RedisThrottlerStorage extends SharedThrottlerStorage implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private readonly redis: ThrottleRedis;
  private readonly prefix: string;
  private lastWarning = 0;
  private connecting?: Promise<void>;
  private closing?: Promise<void>;

  constructor(private readonly config: EnvironmentVariables) {
    super();
    this.prefix = `${config.QUEUE_PREFIX}:ratelimit`;
    // Both keys share QUEUE_PREFIX's {hash tag}: one Cluster slot, as the script needs.
    this.redis = createRedisClient({
      ...redisConnectionOptions(config),
      // Fail fast: the request must not wait for a reconnection.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: CONNECT_TIMEOUT_MS,
      lazyConnect: true,
    }) as ThrottleRedis;
    this.redis.defineCommand('throttleIncrement', { numberOfKeys: 2, lua: INCREMENT_SCRIPT });
    // Without a listener an error event would crash the process; redisStatus logs one line per interval.
    this.redis.on('error', (error: Error) => redisStatus.down(error));
    this.redis.on('ready', () => redisStatus.up());
  }

  /** Connects before the first request; idempotent, as Nest calls it twice (this object is two providers). */
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

  /** Ms the tracker stays blocked, without counting a hit (a login is refused even with the right password); 0 when Redis is down. */
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
