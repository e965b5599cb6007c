import type { AppAnalytics, PlatformFunnel } from '../../api';
import { PERMISSIONS, PLATFORMS } from '../../vocabulary';

export type Permission = (typeof PERMISSIONS)[number];

/** Every day from `since` to `today` (UTC, "YYYY-MM-DD"), so a day without data is a gap, not missing. */
export function daysFrom(since: string, today: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${since}T00:00:00Z`); t <= Date.parse(`${today}T00:00:00Z`); t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** Installations per day, one series per platform, of the permissions chosen (all when none). */
export function installationSeries(rows: AppAnalytics['installations'], days: string[], permission: Permission | 'any') {
  return PLATFORMS.map((platform) => ({
    platform,
    values: days.map((day) =>
      rows
        .filter((r) => r.day === day && r.platform === platform && (permission === 'any' || r.permission === permission))
        .reduce((sum, r) => sum + r.installations, 0),
    ),
  }));
}

/** Sends and their outcomes per day; 0 on a day without a send. */
export function sendSeries(rows: AppAnalytics['sends'], days: string[]) {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const pick = (key: 'sends' | 'accepted' | 'failed' | 'skipped' | 'opened') => days.map((day) => byDay.get(day)?.[key] ?? 0);
  return { sends: pick('sends'), accepted: pick('accepted'), failed: pick('failed'), skipped: pick('skipped'), opened: pick('opened') };
}

/** A platform's funnel steps, each as a share of its accepted deliveries. */
export function funnelShares(row: PlatformFunnel) {
  return (['accepted', 'received', 'displayed', 'opened'] as const).map((step) => ({
    step,
    count: row[step],
    share: row.accepted > 0 ? row[step] / row.accepted : null,
  }));
}
