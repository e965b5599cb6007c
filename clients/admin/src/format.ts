/**
 * How the dashboard writes numbers and times: numbers with the viewer's thousands separators,
 * rates as percentages, times in the viewer's time zone (the UTC time on hover, components/Time.tsx).
 */
import type { RecipientKind } from './vocabulary';

export const formatNumber = (value: number, locale?: string) => new Intl.NumberFormat(locale).format(value);

/** `part` as a share of `whole`, one decimal; a dash when there is no whole to speak of. */
export function formatRate(part: number, whole: number, locale?: string): string {
  if (whole <= 0) return '–';
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(part / whole);
}

/** A date and time in the viewer's zone, the zone named: "Nov 24, 2026, 5:05:00 AM EST". */
export function formatTime(iso: string, locale?: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'long', timeZone }).format(new Date(iso));
}

/** The time of day in the viewer's zone, to the second: "3:32:56 AM". */
export function formatTimeOfDay(iso: string, locale?: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, { timeStyle: 'medium', timeZone }).format(new Date(iso));
}

/** A minute of a chart's axis, in the viewer's zone: "14:05". */
export function formatMinute(iso: string, locale?: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone }).format(new Date(iso));
}

/** "2026-11-24 10:05:00 UTC": what hovering a time shows. */
export const formatUtc = (iso: string) => `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** The funnel of a send: each step's count and its share of the accepted deliveries. */
export function funnel(stats: { accepted: number; received: number; displayed: number; opened: number }) {
  return (['accepted', 'received', 'displayed', 'opened'] as const).map((step) => ({
    step,
    count: stats[step],
    ofAccepted: stats.accepted > 0 ? stats[step] / stats.accepted : null,
  }));
}

/** Whom a send targeted, in words. */
export function describeTarget(target: { kind: RecipientKind; users: number | null; tags: string[] | null }, locale?: string): string {
  switch (target.kind) {
    case 'user_ids':
      return target.users === 1 ? '1 user' : `${formatNumber(target.users ?? 0, locale)} users`;
    case 'installation_ids':
      return 'installation ids';
    case 'tags':
      return `tags: ${(target.tags ?? []).join(', ')}`;
    case 'filter':
      return 'an audience filter';
    case 'all':
      return 'every installation';
    case 'topic':
      return "a topic's subscribers";
  }
}

/** The start of the day after `day` (YYYY-MM-DD) in the viewer's zone, as an instant: "created on or before that day" is "before this". */
export function startOfNextDay(day: string): string {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(year, month - 1, date + 1).toISOString();
}
