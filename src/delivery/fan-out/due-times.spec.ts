import { dueTimes } from './pacing';

describe('dueTimes (docs/api.md#scheduling)', () => {
  it('gives each known zone its instant and leaves unknown ones to the UTC fallback', () => {
    const reference = new Date('2026-01-15T06:00:00.000Z');
    const due = dueTimes({ now: reference, reference, localTime: '09:00', fixedDue: null, quiet: null }, [
      'Europe/Paris',
      'Mars/Olympus',
      'Asia/Kolkata',
      '+05:30',
    ]);
    expect(due.zones).toEqual(['Europe/Paris', 'Asia/Kolkata']);
    expect(due.dues.map((d) => d!.toISOString())).toEqual(['2026-01-15T08:00:00.000Z', '2026-01-16T03:30:00.000Z']);
    expect(due.fallback!.toISOString()).toBe('2026-01-15T09:00:00.000Z');
    expect(due.quietSkips).toEqual([false, false]);
    expect(due.fallbackQuietSkip).toBe(false);
  });
});
