import { isTimeZone, minuteOfDay, nextLocalTime } from './local-time';

/**
 * Pacing rules of the fan-out (docs/api.md#pacing): how a throttled send is cut into batches, and
 * when quiet hours hold a marketing message. Pure functions: the fan-out passes what they decide
 * to its chunk statement as parameters.
 */

/** An app's quiet hours, "HH:MM" each; `start` after `end` crosses midnight. */
export interface QuietWindow {
  start: string;
  end: string;
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export { throttleBatchSize } from '../throttle';

/** Milliseconds between the starts of two batches of `size` at `perMinute`. */
export const batchIntervalMs = (perMinute: number, size: number) => (size * 60_000) / perMinute;

/**
 * How far a throttled send's fan-out runs ahead of its turns, in batches (ten seconds at half a
 * second a batch): rows further out are written as their turns come near, a few thousand at a time,
 * so a large throttled send does not write all its rows at once while other sends wait for the CPU
 * (docs/api.md#pacing).
 */
export const PACE_LEAD_BATCHES = 20;

/** A throttled send's chunk: half the lead's messages at most, so the fan-out comes back about twice a lead. */
export const throttleChunkSize = (batchSize: number, chunkSize: number) => Math.max(1, Math.min(chunkSize, (PACE_LEAD_BATCHES / 2) * batchSize));

/**
 * When a throttled send's fan-out should continue, or null for now: once the turn of its next batch
 * (`nextBatch` turns of `paceMs` after the processing start) is no more than the lead away.
 */
export function fanOutResumesAt(startedAt: Date, nextBatch: number, paceMs: number, now: Date): Date | null {
  const resume = startedAt.getTime() + (nextBatch - PACE_LEAD_BATCHES) * paceMs;
  return resume > now.getTime() ? new Date(resume) : null;
}

/**
 * When the quiet hours that `at` falls in end on the clock of `zone` (UTC when missing or invalid),
 * or null when `at` is outside them. The window holds its start minute, not its end minute.
 */
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

/** What decides the due times of a send's installations. */
export interface DueRules {
  /** The fan-out's time, for an immediate send. */
  now: Date;
  /** When local times count from: send_at, or the acceptance when later or absent. */
  reference: Date;
  /** `options.local_time` (docs/api.md#scheduling). */
  localTime?: string;
  /** send_at, or null (now), for a send without a local time. */
  fixedDue: Date | null;
  /** The app's quiet hours, for a marketing send. */
  quiet: QuietWindow | null;
  /** `options.ttl` in seconds, if given. */
  ttl?: number;
}

/**
 * Each zone's due instant (docs/api.md#scheduling, #pacing): its local time, else the send's; then,
 * for a marketing send due inside the app's quiet hours on that zone's clock, the end of the
 * window, or a QuietHours skip when the message's ttl would run out first.
 */
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
