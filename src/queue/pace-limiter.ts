import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { EnvironmentVariables } from '../config/env';
import { workerConnection } from './queue.module';
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
  paceTake(key: string, now: number, perMessageMs: number, count: number): Promise<number>;
  paceGiveBack(key: string, ms: number): Promise<number>;
};

/** The pace of throttled sends (docs/api.md#pacing), on its own Redis connection, keys under `<QUEUE_PREFIX>:pace:`. */
@Injectable()
export class PaceLimiter implements OnModuleDestroy {
  private readonly redis: PaceRedis;

  constructor(private readonly config: EnvironmentVariables) {
    this.redis = createRedisClient(workerConnection(config)) as PaceRedis;
    this.redis.defineCommand('paceTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.redis.defineCommand('paceGiveBack', { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT });
    // Without a listener an error event would crash the process.
    this.redis.on('error', (error: Error) => redisStatus.down(error));
  }

  /** 0 when `count` messages may go now, else the ms until their turn, which is theirs from then on. */
  take(notificationId: string, perMinute: number, count: number, now: number): Promise<number> {
    return this.redis.paceTake(this.key(notificationId), now, 60_000 / perMinute, count);
  }

  /** Whether a batch given the turn `turnAt` may still go at `now`: not once half its share late, when it takes a new turn. */
  static turnKept(turnAt: number, perMinute: number, count: number, now: number): boolean {
    return now <= turnAt + ((60_000 / perMinute) * count) / 2;
  }

  async giveBack(notificationId: string, perMinute: number, count: number): Promise<void> {
    if (count > 0) await this.redis.paceGiveBack(this.key(notificationId), (60_000 / perMinute) * count);
  }

  async onModuleDestroy(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private key(notificationId: string): string {
    return `${this.config.QUEUE_PREFIX}:pace:${notificationId}`;
  }
}
