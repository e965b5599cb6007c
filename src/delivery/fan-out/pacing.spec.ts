import { batchIntervalMs, dueTimes, fanOutResumesAt, PACE_LEAD_BATCHES, quietUntil, throttleBatchSize, throttleChunkSize } from './pacing';

const at = (iso: string) => new Date(iso);

describe('quiet hours (docs/api.md#pacing)', () => {
  const night = { start: '22:00', end: '07:00' };
  const lunch = { start: '12:00', end: '13:30' };

  it.each<[string, string, string | null]>([
    ['before the window', '2026-03-10T21:59:00.000Z', null],
    ['at its start (held)', '2026-03-10T22:00:00.000Z', '2026-03-11T07:00:00.000Z'],
    ['before midnight', '2026-03-10T23:30:00.000Z', '2026-03-11T07:00:00.000Z'],
    ['after midnight', '2026-03-11T03:00:00.000Z', '2026-03-11T07:00:00.000Z'],
    ['at its end (not held)', '2026-03-11T07:00:00.000Z', null],
  ])('a window across midnight, UTC: %s', (_name, due, until) => {
    expect(quietUntil(at(due), night, null)?.toISOString() ?? null).toBe(until);
  });

  it('a window within a day holds only inside it', () => {
    expect(quietUntil(at('2026-03-10T11:59:00.000Z'), lunch, 'UTC')).toBeNull();
    expect(quietUntil(at('2026-03-10T12:45:00.000Z'), lunch, 'UTC')!.toISOString()).toBe('2026-03-10T13:30:00.000Z');
    expect(quietUntil(at('2026-03-10T13:30:00.000Z'), lunch, 'UTC')).toBeNull();
  });

  it("reads the installation's own clock, and UTC for a zone that is not one", () => {
    // 03:00 UTC is 12:00 in Tokyo (outside the night) and 22:00 the day before in New York (inside).
    const due = at('2026-03-10T03:00:00.000Z');
    expect(quietUntil(due, night, 'Asia/Tokyo')).toBeNull();
    expect(quietUntil(due, night, 'America/New_York')!.toISOString()).toBe('2026-03-10T11:00:00.000Z');
    expect(quietUntil(due, night, 'Mars/Olympus')!.toISOString()).toBe('2026-03-10T07:00:00.000Z');
  });

  it('holds each zone until its window ends, or skips it when the ttl runs out first', () => {
    const now = at('2026-03-10T03:00:00.000Z');
    const rules = { now, reference: now, fixedDue: null, quiet: night };
    const held = dueTimes(rules, ['Asia/Tokyo', 'America/New_York']);
    expect(held.dues.map((d) => d?.toISOString() ?? null)).toEqual([null, '2026-03-10T11:00:00.000Z']);
    expect(held.quietSkips).toEqual([false, false]);
    expect(held.fallback!.toISOString()).toBe('2026-03-10T07:00:00.000Z');

    // Eight hours to New York's 07:00, four to UTC's: a ttl of five hours outlasts only the latter.
    const short = dueTimes({ ...rules, ttl: 5 * 3600 }, ['Asia/Tokyo', 'America/New_York']);
    expect(short.quietSkips).toEqual([false, true]);
    expect(short.fallbackQuietSkip).toBe(false);
    expect(dueTimes({ ...rules, ttl: 0 }, []).fallbackQuietSkip).toBe(true);
  });

  it('applies to the local time a send is due at, not to the time of the fan-out', () => {
    const now = at('2026-03-10T12:00:00.000Z');
    const due = dueTimes({ now, reference: now, localTime: '23:00', fixedDue: null, quiet: night }, []);
    expect(due.fallback!.toISOString()).toBe('2026-03-11T07:00:00.000Z');
  });
});

describe('throttled batches (docs/api.md#pacing)', () => {
  it('are half a second of the rate, at least one message and at most a delivery batch', () => {
    expect(throttleBatchSize(60, 500)).toBe(1);
    expect(throttleBatchSize(600, 500)).toBe(5);
    expect(throttleBatchSize(1_000_000, 500)).toBe(500);
    expect(batchIntervalMs(600, 5)).toBe(500);
    expect(batchIntervalMs(60, 1)).toBe(1000);
  });

  it('spread a minute evenly: 600 per minute is 120 batches of 5, never more than twice the even rate in a second', () => {
    const size = throttleBatchSize(600, 500);
    const interval = batchIntervalMs(600, size);
    const starts = Array.from({ length: 360 }, (_, k) => k * interval);
    const perMinute = [0, 1, 2].map((m) => starts.filter((t) => t >= m * 60_000 && t < (m + 1) * 60_000).length * size);
    expect(perMinute).toEqual([600, 600, 600]);
    for (let s = 0; s < 180; s += 0.25) {
      const inSecond = starts.filter((t) => t >= s * 1000 && t < s * 1000 + 1000).length * size;
      expect(inSecond).toBeLessThanOrEqual(20);
    }
  });

  it('are fanned out ten seconds of turns ahead: a chunk is at most half of it, and the fan-out pauses until the next batch is a lead away', () => {
    expect(PACE_LEAD_BATCHES * batchIntervalMs(600, throttleBatchSize(600, 500))).toBe(10_000);
    expect(throttleChunkSize(throttleBatchSize(60, 500), 5000)).toBe(10);
    expect(throttleChunkSize(throttleBatchSize(120_000, 500), 5000)).toBe(5000);
    const start = at('2026-01-01T00:00:00Z');
    // 60 a minute: a batch a second. The next batch 20 is due in twenty seconds: a lead away, go on.
    expect(fanOutResumesAt(start, 20, 1000, start)).toBeNull();
    expect(fanOutResumesAt(start, 30, 1000, start)).toEqual(at('2026-01-01T00:00:10Z'));
    expect(fanOutResumesAt(start, 30, 1000, at('2026-01-01T00:00:10Z'))).toBeNull();
  });
});
