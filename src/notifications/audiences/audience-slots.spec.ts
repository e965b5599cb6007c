import { AudienceBusyError } from '../../common/errors';
import { audienceLimits, AudienceSlots, SlotCounter } from './audience-slots';
import type { EnvironmentVariables } from '../../config/env';

describe('SlotCounter', () => {
  it('gives an app at most perApp slots and the process at most total', () => {
    const slots = new SlotCounter({ total: 3, perApp: 2 });
    const a1 = slots.tryTake('a');
    const a2 = slots.tryTake('a');
    expect(a1 && a2).toBeDefined();
    expect(slots.tryTake('a')).toBeUndefined();
    expect(slots.tryTake('b')).toBeDefined();
    expect(slots.tryTake('c')).toBeUndefined();
    expect([slots.held(), slots.held('a'), slots.held('b'), slots.held('c')]).toEqual([3, 2, 1, 0]);
  });

  it('gives a slot back once, however often it is released', () => {
    const slots = new SlotCounter({ total: 2, perApp: 2 });
    const a = slots.tryTake('a')!;
    slots.tryTake('a');
    a();
    a();
    expect([slots.held(), slots.held('a')]).toEqual([1, 1]);
    expect(slots.tryTake('b')).toBeDefined();
    expect(slots.tryTake('b')).toBeUndefined();
  });

  it('forgets an app that holds nothing', () => {
    const slots = new SlotCounter({ total: 1, perApp: 1 });
    slots.tryTake('a')!();
    expect(slots.held('a')).toBe(0);
    expect(slots.tryTake('a')).toBeDefined();
  });
});

describe('audienceLimits', () => {
  const config = (pool: number, total?: number) =>
    ({ DATABASE_POOL_SIZE: pool, AUDIENCE_CONCURRENCY: total, AUDIENCE_CONCURRENCY_PER_APP: 2 }) as EnvironmentVariables;

  it('defaults to a quarter of the pool, at least 1', () => {
    expect(audienceLimits(config(20))).toEqual({ total: 5, perApp: 2 });
    expect(audienceLimits(config(3))).toEqual({ total: 1, perApp: 2 });
    expect(audienceLimits(config(20, 8))).toEqual({ total: 8, perApp: 2 });
  });
});

describe('AudienceSlots', () => {
  const slots = () => new AudienceSlots({ DATABASE_POOL_SIZE: 20, AUDIENCE_CONCURRENCY: 2, AUDIENCE_CONCURRENCY_PER_APP: 1 } as EnvironmentVariables);

  it('refuses past a limit without running the work, and holds the slot until the work settles', async () => {
    const limiter = slots();
    let finish!: () => void;
    const running = limiter.run('a', () => new Promise<void>((resolve) => (finish = resolve)));
    const work = jest.fn(async () => 1);
    await expect(limiter.run('a', work)).rejects.toBeInstanceOf(AudienceBusyError);
    expect(work).not.toHaveBeenCalled();
    expect(limiter.counter.held('a')).toBe(1);
    finish();
    await running;
    expect(limiter.counter.held()).toBe(0);
    await expect(limiter.run('a', work)).resolves.toBe(1);
  });

  it('gives the slot back when the work fails', async () => {
    const limiter = slots();
    await expect(limiter.run('a', () => Promise.reject(new Error('cancelled')))).rejects.toThrow('cancelled');
    expect(limiter.counter.held()).toBe(0);
  });
});
