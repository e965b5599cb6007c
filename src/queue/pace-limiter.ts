import { Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { EnvironmentVariables } from '../config/env';
import { PaceRepository } from './pace.repository';
import { byBackend, redisWorkerConnection } from './queue-backend';
import { createRedisClient } from './redis-client';
import { redisStatus } from './redis-status';

/** GCRA step (docs/decisions/0021-pacing-in-redis-by-cell-rate.md). KEYS[1]: the instant used up to; ARGV: now, ms per message, count; GIVE_BACK_SCRIPT's ARGV[1]: ms unused. */
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local share = tonumber(ARGV[2]) * tonumber(ARGV[3])
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local turn = math.max(used - share / 2, now)
local until_ = math.max(used, now) + share
redis.call('SET', KEYS[1], tostring(until_), 'PX', math.ceil(until_ - now) + 3600000)
return math.ceil(turn - now)
`;

const GIVE_BACK_SCRIPT = `
local next = tonumber(redis.call('GET', KEYS[1]) or '0')
if next > 0 then redis.call('SET', KEYS[1], tostring(next - tonumber(ARGV[1])), 'KEEPTTL') end
return 0
`;

type PaceRedis = (Redis | Cluster) & {
  paceTake(key: string, now: number, shareMs: number, count: 1): Promise<number>;
  paceGiveBack(key: string, ms: number): Promise<number>;
};

/** Where the pace is kept: Redis (the scripts above) or PostgreSQL (pace.repository.ts), by QUEUE_BACKEND. */
interface PaceStore {
  take(key: string, now: number, share: number): Promise<number>;
  giveBack(key: string, ms: number): Promise<void>;
  close(): Promise<void>;
}

class RedisPaceStore implements PaceStore {
  private readonly redis: PaceRedis;

  constructor(config: EnvironmentVariables) {
    this.redis = createRedisClient(redisWorkerConnection(config)) as PaceRedis;
    this.redis.defineCommand('paceTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.redis.defineCommand('paceGiveBack', { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT });
    // Without a listener an error event would crash the process.
    this.redis.on('error', (error: Error) => redisStatus.down(error));
  }

  take(key: string, now: number, share: number): Promise<number> {
    return this.redis.paceTake(key, now, share, 1);
  }

  async giveBack(key: string, ms: number): Promise<void> {
    await this.redis.paceGiveBack(key, ms);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

const PURGE_EVERY_MS = 60_000;

class PostgresPaceStore implements PaceStore {
  private purgedAt = 0;

  constructor(private readonly repository: PaceRepository) {}

  async take(key: string, now: number, share: number): Promise<number> {
    // Redis expires its keys; here the rows of sends paced over an hour ago go once a minute.
    if (now - this.purgedAt >= PURGE_EVERY_MS) {
      this.purgedAt = now;
      await this.repository.purge(now);
    }
    return this.repository.take(key, now, share);
  }

  giveBack(key: string, ms: number): Promise<void> {
    return this.repository.giveBack(key, ms);
  }

  async close(): Promise<void> {}
}

/** The pace of throttled sends (docs/api.md#pacing), shared by every worker: keys `<QUEUE_PREFIX>:pace:<id>`, in Redis or PostgreSQL by QUEUE_BACKEND. */
@Injectable()
export class PaceLimiter implements OnModuleDestroy {
  private readonly store: PaceStore;

  constructor(
    private readonly config: EnvironmentVariables,
    // Provided beside it (delivery.module.ts); a bench or test limiter on Redis may leave it out.
    @Optional() repository?: PaceRepository,
  ) {
    this.store = byBackend<PaceStore>(config, {
      redis: () => new RedisPaceStore(config),
      postgres: () => {
        if (!repository) throw new Error('PaceLimiter on QUEUE_BACKEND=postgres needs its PaceRepository');
        return new PostgresPaceStore(repository);
      },
    });
  }

  /** 0 when `count` messages may go now, else the ms until their turn, which is theirs from then on. */
  take(notificationId: string, perMinute: number, count: number, now: number): Promise<number> {
    return this.store.take(this.key(notificationId), now, (60_000 / perMinute) * count);
  }

  /** Whether a batch given the turn `turnAt` may still go at `now`: not once half its share late, when it takes a new turn. */
  static turnKept(turnAt: number, perMinute: number, count: number, now: number): boolean {
    return now <= turnAt + ((60_000 / perMinute) * count) / 2;
  }

  async giveBack(notificationId: string, perMinute: number, count: number): Promise<void> {
    if (count > 0) await this.store.giveBack(this.key(notificationId), (60_000 / perMinute) * count);
  }

  onModuleDestroy(): Promise<void> {
    return this.store.close();
  }

  private key(notificationId: string): string {
    return `${this.config.QUEUE_PREFIX}:pace:${notificationId}`;
  }
}
