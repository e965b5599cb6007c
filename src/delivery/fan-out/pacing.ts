import { isTimeZone, minuteOfDay, nextLocalTime } from './local-time';

/** An app's quiet hours, "HH:MM" each; `start` after `end` crosses midnight. */
export interface QuietWindow {
  start: string;
  end: string;
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export { throttleBatchSize } from '../throttle';

/** Milliseconds between the starts of two batches of `size` at `perMinute`. */
export const batchIntervalMs = (perMinute: number, size: number) => (size * 60_000) / perMinute;

/** How many batches a throttled fan-out writes ahead of its turns, so a large one does not hog the CPU (docs/api.md#pacing). */
export const PACE_LEAD_BATCHES = 20;

/** A throttled send's chunk: half the lead's messages at most, so the fan-out comes back about twice a lead. */
export const throttleChunkSize = (batchSize: number, chunkSize: number) => Math.max(1, Math.min(chunkSize, (PACE_LEAD_BATCHES / 2) * batchSize));

/** When a throttled fan-out should continue (its next batch's turn within the lead), or null for now. */
export function fanOutResumesAt(startedAt: Date, nextBatch: number, paceMs: number, now: Date): Date | null {
  const resume = startedAt.getTime() + (nextBatch - PACE_LEAD_BATCHES) * paceMs;
  return resume > now.getTime() ? new Date(resume) : null;
}

/** When the quiet hours holding `at` end on `zone`'s clock (UTC if invalid), else null; the end minute is outside. */
export function quietUntil(at: Date, window: QuietWindow, zone: string | null | undefined): Date | null {
  const now = minuteOfDay(at, zone);
  const start = minutes(window.start);
  const end = minutes(window.end);
  const inside = start < end ? now >= start && now < end : now >= start || now < end;
  return inside ? nextLocalTime(at, window.end, zone) : null;
}

/** Due times of a chunk's installations by time zone; zones not listed (and none) use the fallback's. */
export interface ChunkDueTimes {
  zones: string[];
  dues: (Date | null)[];
  /** Per zone: held by quiet hours past its ttl, so skipped as QuietHours. */
  quietSkips: boolean[];
  fallback: Date | null;
  fallbackQuietSkip: boolean;
}

export interface DueRules {
  now: Date;
  /** When local times count from: send_at, or the acceptance when later or absent. */
  reference: Date;
  localTime?: string;
  fixedDue: Date | null;
  quiet: QuietWindow | null;
  ttl?: number;
}

/** Each zone's due instant (docs/api.md#scheduling, #pacing), moved past quiet hours, or skipped when its ttl runs out first. */
export function dueTimes(rules: DueRules, zones: string[]): ChunkDueTimes {
  const known = zones.filter((zone) => isTimeZone(zone));
  const forZone = (zone: string) => {
    const planned = rules.localTime ? nextLocalTime(rules.reference, rules.localTime, zone) : rules.fixedDue;
    const at = planned && planned > rules.now ? planned : rules.now;
    const held = rules.quiet ? quietUntil(at, rules.quiet, zone) : null;
    if (!held) return { due: planned, skip: false };
    return { due: held, skip: rules.ttl !== undefined && held.getTime() - at.getTime() > rules.ttl * 1000 };
  };
  const each = known.map(forZone);
  const fallback = forZone('UTC');
  return {
    zones: known,
    dues: each.map((e) => e.due),
    quietSkips: each.map((e) => e.skip),
    fallback: fallback.due,
    fallbackQuietSkip: fallback.skip,
  };
}
