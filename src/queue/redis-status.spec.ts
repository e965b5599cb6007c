import { Logger } from '@nestjs/common';
import { RedisStatus } from './redis-status';

const REDIS_LOG_INTERVAL_MS = 10_000;

describe('RedisStatus', () => {
  let now = 0;
  const logged: string[] = [];
  let status: RedisStatus;

  beforeEach(() => {
    now = 1_000_000;
    logged.length = 0;
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void logged.push(`warn ${String(message)}`));
    jest.spyOn(Logger.prototype, 'log').mockImplementation((message: unknown) => void logged.push(`log ${String(message)}`));
    status = new RedisStatus(
      () => now,
      () => REDIS_LOG_INTERVAL_MS,
    );
  });
  afterEach(() => jest.restoreAllMocks());

  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6390'), { code: 'ECONNREFUSED' });

  it('turns the errors of many clients retrying into one line per interval, and one on recovery', () => {
    // Ten clients, each failing about five times a second, for 25 s.
    for (let ms = 0; ms <= 25_000; ms += 20) {
      now = 1_000_000 + ms;
      status.down(refused());
    }
    expect(status.reachable).toBe(false);
    expect(logged).toEqual([
      'warn Redis unreachable (ECONNREFUSED): retrying until it answers; sends are stored and queued once it is back',
      `warn Redis still unreachable after ${REDIS_LOG_INTERVAL_MS / 1000} s (ECONNREFUSED): retrying`,
      `warn Redis still unreachable after ${(2 * REDIS_LOG_INTERVAL_MS) / 1000} s (ECONNREFUSED): retrying`,
    ]);
    status.up();
    status.up();
    expect(status.reachable).toBe(true);
    expect(logged.slice(3)).toEqual(['log Redis reachable again after 25 s']);
  });

  it('says nothing while Redis is fine', () => {
    status.up();
    expect(logged).toEqual([]);
  });
});
