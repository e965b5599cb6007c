/** Due instants of `options.local_time` (docs/api.md#scheduling), from Intl's IANA data: no offsets are written here. */

const formatters = new Map<string, Intl.DateTimeFormat | null>();

/** A formatter for an IANA zone name, else null; offsets (`+05:30`) Intl takes are refused. */
function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(zone);
  if (formatter !== undefined) return formatter;
  formatter = null;
  if (/^[A-Za-z]/.test(zone)) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      formatter = null; // RangeError: not a time zone Intl knows
    }
  }
  // Bounded: names come from devices, and a garbage name is cached as null like a real one.
  if (formatters.size >= 5000) formatters.clear();
  formatters.set(zone, formatter);
  return formatter;
}

export function isTimeZone(zone: string | null | undefined): zone is string {
  return typeof zone === 'string' && formatterFor(zone) !== null;
}

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClock(formatter: Intl.DateTimeFormat, instant: number): Wall {
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second };
}

function offsetAt(formatter: Intl.DateTimeFormat, instant: number): number {
  const w = wallClock(formatter, instant);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - (instant - (((instant % 1000) + 1000) % 1000));
}

/** Instants at which the zone shows this wall time, earliest first; in a gap, as Temporal's "compatible" (02:30 → 03:30). */
function instantsOf(formatter: Intl.DateTimeFormat, year: number, month: number, day: number, hour: number, minute: number): number[] {
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  // Offsets a day either side cover every real transition (none is closer than that to another).
  const before = offsetAt(formatter, asUtc - 86_400_000);
  const after = offsetAt(formatter, asUtc + 86_400_000);
  const candidates = [...new Set([asUtc - before, asUtc - after])].sort((a, b) => a - b);
  const valid = candidates.filter((instant) => asUtc - offsetAt(formatter, instant) === instant);
  return valid.length > 0 ? valid : [asUtc - before];
}

/** The first instant at or after `from` at which `zone` (UTC if invalid) shows `hhmm`. */
export function nextLocalTime(from: Date, hhmm: string, zone: string | null | undefined): Date {
  const [hour, minute] = hhmm.split(':').map(Number);
  const formatter = (zone && formatterFor(zone)) || formatterFor('UTC')!;
  const start = from.getTime();
  const today = wallClock(formatter, start);
  for (let days = 0; days < 3; days++) {
    // Date.UTC rolls day 32 over into the next month, so this walks the calendar correctly.
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + days));
    const due = instantsOf(formatter, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), hour, minute).find((instant) => instant >= start);
    if (due !== undefined) return new Date(due);
  }
  throw new Error(`No ${hhmm} in ${zone} after ${from.toISOString()}`);
}

export function minuteOfDay(at: Date, zone: string | null | undefined): number {
  const formatter = (zone && formatterFor(zone)) || formatterFor('UTC')!;
  const wall = wallClock(formatter, at.getTime());
  return wall.hour * 60 + wall.minute;
}
