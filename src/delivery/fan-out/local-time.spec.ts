import { isTimeZone, nextLocalTime } from './local-time';

const at = (iso: string) => new Date(iso);
const next = (from: string, hhmm: string, zone: string | null) => nextLocalTime(at(from), hhmm, zone).toISOString();

describe('nextLocalTime (docs/api.md#scheduling)', () => {
  it('is later the same day when the local time has not come yet', () => {
    // Paris is UTC+1 in winter: 09:00 there is 08:00Z.
    expect(next('2026-01-15T06:00:00.000Z', '09:00', 'Europe/Paris')).toBe('2026-01-15T08:00:00.000Z');
    // New York is UTC-5 in winter.
    expect(next('2026-01-15T06:00:00.000Z', '09:00', 'America/New_York')).toBe('2026-01-15T14:00:00.000Z');
    // Tokyo is UTC+9, no DST: it is already 15:00 there, so the next 09:00 is tomorrow's.
    expect(next('2026-01-15T06:00:00.000Z', '09:00', 'Asia/Tokyo')).toBe('2026-01-16T00:00:00.000Z');
  });

  it('handles :30 and :45 offsets', () => {
    // India is UTC+5:30 all year.
    expect(next('2026-01-15T00:00:00.000Z', '09:00', 'Asia/Kolkata')).toBe('2026-01-15T03:30:00.000Z');
    // Nepal is UTC+5:45.
    expect(next('2026-01-15T00:00:00.000Z', '09:00', 'Asia/Kathmandu')).toBe('2026-01-15T03:15:00.000Z');
    // Adelaide is UTC+10:30 in (southern) summer, with DST.
    expect(next('2026-01-15T00:00:00.000Z', '09:00', 'Australia/Adelaide')).toBe('2026-01-15T22:30:00.000Z');
  });

  it('uses the offset of the due day across a DST change', () => {
    // Europe moves to summer time on 2026-03-29 at 01:00Z: from a Saturday 10:00Z, the next 09:00
    // in Paris is on Sunday, already UTC+2, so 07:00Z, not 08:00Z.
    expect(next('2026-03-28T10:00:00.000Z', '09:00', 'Europe/Paris')).toBe('2026-03-29T07:00:00.000Z');
    // The US moves back on 2026-11-01: 09:00 that Sunday in New York is UTC-5 again.
    expect(next('2026-10-31T20:00:00.000Z', '09:00', 'America/New_York')).toBe('2026-11-01T14:00:00.000Z');
  });

  it('takes a time skipped by the clocks going forward as the instant after the gap, and the first of a repeated one', () => {
    // 02:30 does not exist in Paris on 2026-03-29 (02:00 → 03:00): 03:30 CEST = 01:30Z.
    expect(next('2026-03-29T00:00:00.000Z', '02:30', 'Europe/Paris')).toBe('2026-03-29T01:30:00.000Z');
    // 02:30 happens twice on 2026-10-25 (03:00 → 02:00): the first is 00:30Z (CEST) ...
    expect(next('2026-10-24T23:00:00.000Z', '02:30', 'Europe/Paris')).toBe('2026-10-25T00:30:00.000Z');
    // ... and once it has passed, the second (01:30Z, CET) is still "at or after".
    expect(next('2026-10-25T01:00:00.000Z', '02:30', 'Europe/Paris')).toBe('2026-10-25T01:30:00.000Z');
  });

  it('is the start instant itself when the local clock shows the time exactly then', () => {
    expect(next('2026-01-15T08:00:00.000Z', '09:00', 'Europe/Paris')).toBe('2026-01-15T08:00:00.000Z');
    expect(next('2026-01-15T08:00:00.001Z', '09:00', 'Europe/Paris')).toBe('2026-01-16T08:00:00.000Z');
  });

  it('uses UTC for a missing, unknown or non-IANA zone', () => {
    for (const zone of [null, '', 'Mars/Olympus', '+05:30', 'not a zone']) {
      expect(next('2026-01-15T06:00:00.000Z', '09:00', zone)).toBe('2026-01-15T09:00:00.000Z');
    }
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('+05:30')).toBe(false);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });

  it('crosses month and year ends', () => {
    expect(next('2026-12-31T23:30:00.000Z', '00:15', 'UTC')).toBe('2027-01-01T00:15:00.000Z');
    expect(next('2026-12-31T23:30:00.000Z', '08:00', 'Pacific/Auckland')).toBe('2027-01-01T19:00:00.000Z');
  });
});
