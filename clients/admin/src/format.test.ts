import { describe, expect, it } from 'vitest';
import { describeTarget, formatMinute, formatNumber, formatRate, formatTime, formatTimeOfDay, formatUtc, funnel, startOfNextDay } from './format';

describe('format', () => {
  it('writes numbers with the locale thousands separators', () => {
    expect(formatNumber(1234567, 'en-US')).toBe('1,234,567');
    expect(formatNumber(1234567, 'de-DE')).toBe('1.234.567');
  });

  it('writes rates as percentages, a dash without a base', () => {
    expect(formatRate(1, 8, 'en-US')).toBe('12.5%');
    expect(formatRate(0, 0, 'en-US')).toBe('–');
  });

  it('writes times in the given zone, UTC on hover', () => {
    const iso = '2026-11-24T10:05:00.000Z';
    expect(formatTime(iso, 'en-US', 'America/New_York')).toBe('Nov 24, 2026, 5:05:00 AM EST');
    expect(formatMinute(iso, 'en-GB', 'Europe/Paris')).toBe('11:05');
    expect(formatUtc(iso)).toBe('2026-11-24 10:05:00 UTC');
    expect(formatTimeOfDay(iso, 'en-US', 'Asia/Tokyo')).toBe('7:05:00 PM');
  });

  it('makes the funnel relative to the accepted deliveries', () => {
    expect(funnel({ accepted: 200, received: 150, displayed: 100, opened: 10 })).toEqual([
      { step: 'accepted', count: 200, ofAccepted: 1 },
      { step: 'received', count: 150, ofAccepted: 0.75 },
      { step: 'displayed', count: 100, ofAccepted: 0.5 },
      { step: 'opened', count: 10, ofAccepted: 0.05 },
    ]);
    expect(funnel({ accepted: 0, received: 0, displayed: 0, opened: 0 })[1].ofAccepted).toBeNull();
  });

  it('describes targets', () => {
    expect(describeTarget({ kind: 'user_ids', users: 1200, tags: null }, 'en-US')).toBe('1,200 users');
    expect(describeTarget({ kind: 'tags', users: null, tags: ['beta', 'vip'] })).toBe('tags: beta, vip');
    expect(describeTarget({ kind: 'all', users: null, tags: null })).toBe('every installation');
    expect(describeTarget({ kind: 'filter', users: null, tags: null })).toBe('an audience filter');
    expect(describeTarget({ kind: 'topic', users: null, tags: null })).toBe("a topic's subscribers");
  });

  it("jumps to a date: the start of the next day in the viewer's zone, across months and years", () => {
    expect(startOfNextDay('2026-11-21')).toBe(new Date(2026, 10, 22).toISOString());
    expect(startOfNextDay('2026-11-30')).toBe(new Date(2026, 11, 1).toISOString());
    expect(startOfNextDay('2026-12-31')).toBe(new Date(2027, 0, 1).toISOString());
  });
});
