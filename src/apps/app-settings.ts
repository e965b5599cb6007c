import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { FREQUENCY_CAP_HOURS, FREQUENCY_CAP_MAX } from '../common/notification-options';
import type { AppSettingsRow } from './apps.repository';

/** In common/ because retention reads the longest window. */
export { FREQUENCY_CAP_HOURS, FREQUENCY_CAP_MAX };

export interface AppSettings {
  frequency_cap: { max: number; hours: number } | null;
  quiet_hours: { start: string; end: string } | null;
  identity_verification: boolean;
  inbox_days: number;
}

export interface AppWithSettings {
  id: string;
  name: string;
  settings: AppSettings;
}

export function toAppWithSettings(row: AppSettingsRow): AppWithSettings {
  return {
    id: row.id,
    name: row.name,
    settings: {
      frequency_cap: row.frequency_cap_max === null ? null : { max: row.frequency_cap_max, hours: row.frequency_cap_hours! },
      quiet_hours: row.quiet_hours_start === null ? null : { start: row.quiet_hours_start, end: row.quiet_hours_end! },
      identity_verification: row.identity_verification,
      inbox_days: row.inbox_days,
    },
  };
}

/** Null for off; throws a sentence when malformed or out of bounds. */
export function parseFrequencyCap(text: string): { max: number; hours: number } | null {
  if (text === 'off') return null;
  const match = /^(\d{1,4})\/(\d{1,4})$/.exec(text);
  const max = Number(match?.[1]);
  const hours = Number(match?.[2]);
  if (!match || max < FREQUENCY_CAP_MAX.min || max > FREQUENCY_CAP_MAX.max || hours < FREQUENCY_CAP_HOURS.min || hours > FREQUENCY_CAP_HOURS.max) {
    throw new Error(
      `--frequency-cap must be N/HOURS (N ${FREQUENCY_CAP_MAX.min} to ${FREQUENCY_CAP_MAX.max}, HOURS ${FREQUENCY_CAP_HOURS.min} to ${FREQUENCY_CAP_HOURS.max}) or off, not "${text}"`,
    );
  }
  return { max, hours };
}

const CLOCK = '(?:[01]\\d|2[0-3]):[0-5]\\d';

/** A window may cross midnight; null for off. */
export function parseQuietHours(text: string): { start: string; end: string } | null {
  if (text === 'off') return null;
  const match = new RegExp(`^(${CLOCK})-(${CLOCK})$`).exec(text);
  if (!match || match[1] === match[2]) throw new Error(`--quiet-hours must be HH:MM-HH:MM (two different times, 24-hour clock) or off, not "${text}"`);
  return { start: match[1], end: match[2] };
}

/** Bounds of an app's inbox retention in days (docs/api.md#inbox). */
export const INBOX_DAYS = { min: 1, max: 365 } as const;

export function parseInboxDays(text: string): number {
  const days = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(days >= INBOX_DAYS.min && days <= INBOX_DAYS.max))
    throw new Error(`--inbox-days must be a whole number of days, ${INBOX_DAYS.min} to ${INBOX_DAYS.max}, not "${text}"`);
  return days;
}

export function parseOnOff(option: string, text: string): boolean {
  if (text === 'on' || text === 'off') return text === 'on';
  throw new Error(`${option} must be on or off, not "${text}"`);
}

const SECRET_PREFIX = 'idv_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 256 random bits in base62, as API tokens. */
export function newIdentitySecret(): string {
  let out = '';
  while (out.length < 43) {
    for (const byte of randomBytes(64)) if (byte < 248 && out.length < 43) out += BASE62[byte % 62];
  }
  return SECRET_PREFIX + out;
}

/** Lower-case hex of HMAC-SHA256(secret, user_id), as a backend computes it at login (docs/api.md). */
export function userIdHash(secret: string, userId: string): string {
  return createHmac('sha256', secret).update(userId).digest('hex');
}

export function userIdHashMatches(secrets: readonly string[], userId: string, given: string): boolean {
  const wanted = Buffer.from(given.toLowerCase());
  return secrets.some((secret) => {
    const expected = Buffer.from(userIdHash(secret, userId));
    return expected.length === wanted.length && timingSafeEqual(expected, wanted);
  });
}
