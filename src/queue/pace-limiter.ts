import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { EnvironmentVariables } from '../config/env';
import { workerConnection } from './queue.module';
import { createRedisClient } from './redis-client';
import { redisStatus } from './redis-status';

/**
 * A throttled send's pace (docs/api.md#pacing), in Redis so that every worker process keeps to the
 * same one: a generic cell rate algorithm. KEYS[1] holds the instant (ms, fractional) the send's
 * messages so far have used the rate up to; ARGV: now, the milliseconds each message takes of the
 * rate, the messages wanted. They may go once that instant is less than half their share away (a
 * batch a little early for its turn goes; one late does not delay the next ones), and move it on by
 * their share from then or from now, whichever is later. A batch that comes earlier is given the
 * next turn instead: the instant moves on all the same, and the script answers how many
 * milliseconds are left until that turn, which the batch then takes without asking again. So a
 * crowd of batches due at once (a worker that was away) is spread in one round, and in any
 * stretch of time the grants exceed the rate by at most one and a half batches, whichever process
 * runs them.
 */
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local share = tonumber(ARGV[2]) * tonumber(ARGV[3])
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local turn = math.max(used - share / 2, now)
local until_ = math.max(used, now) + share
redis.call('SET', KEYS[1], tostring(until_), 'PX', math.ceil(until_ - now) + 3600000)
return math.ceil(turn - now)
`;

/** KEYS[1] as above; gives back ARGV[1] milliseconds of share that a batch did not use. */
const GIVE_BACK_SCRIPT = `
local next = tonumber(redis.call('GET', KEYS[1]) or '0')
if next > 0 then redis.call('SET', KEYS[1], tostring(next - tonumber(ARGV[1])), 'KEEPTTL') end
return 0
`;

type PaceRedis = (Redis | Cluster) & {
  paceTake(key: string, now: number, perMessageMs: number, count: number): Promise<number>;
  paceGiveBack(key: string, ms: number): Promise<number>;
};

/**
 * The pace of throttled sends, on a Redis connection of its own (the workers' settings: it waits
 * for Redis as the queues do), keys under `<QUEUE_PREFIX>:pace:` (one cluster slot with the
 * prefix's hash tag). `now` comes from the caller's Clock.
 */
@Injectable()
export class PaceLimiter implements OnModuleDestroy {
  private readonly redis: PaceRedis;

  constructor(private readonly config: EnvironmentVariables) {
    this.redis = createRedisClient(workerConnection(config)) as PaceRedis;
    this.redis.defineCommand('paceTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.redis.defineCommand('paceGiveBack', { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT });
    // ioredis reconnects by itself; without a listener an error event would crash the process.
    this.redis.on('error', (error: Error) => redisStatus.down(error));
  }

  /**
   * Takes `count` messages of a send paced at `perMinute`: 0 when they may go now, else the
   * milliseconds until their turn, which is theirs from then on.
   */
  take(notificationId: string, perMinute: number, count: number, now: number): Promise<number> {
    return this.redis.paceTake(this.key(notificationId), now, 60_000 / perMinute, count);
  }

  /** Gives back `count` messages taken but not sent (a batch with fewer rows than it took). */
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
