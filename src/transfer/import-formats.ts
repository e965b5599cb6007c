import { createHash } from 'node:crypto';
import { INSTALLATION_CSV_COLUMNS } from './installation-csv';

/** The formats `pns import --from` reads (docs/api.md#import). */
export const IMPORT_FORMATS = ['onesignal', 'firebase', 'csv'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One line, read: the installation's id, its registration body (checked later by the installations' own rules) and its history. */
export interface ImportedLine {
  installationId: string;
  /** A PUT /installations body (RegisterInstallationDto, docs/api.md#register-installation). */
  body: Record<string, unknown>;
  registeredAt: Date | null;
  lastSeenAt: Date | null;
  identifierUpdatedAt: Date | null;
  permissionUpdatedAt: Date | null;
  invalidatedAt: Date | null;
  invalidReason: string | null;
}

/** A line that cannot be imported; the message is the reason the summary gives. */
export class LineRefused extends Error {}

/** Reads the records of one file: `header` is given the first record; `read` each later one (or every one when the format has no header). */
export interface FormatReader {
  /** Whether the first record is a header (and was taken as one). Throws LineRefused when the file cannot be this format. */
  header(first: string[]): boolean;
  read(cells: string[]): ImportedLine;
}

export function formatReader(format: ImportFormat): FormatReader {
  if (format === 'onesignal') return new OneSignalReader();
  if (format === 'firebase') return new FirebaseReader();
  return new OwnCsvReader();
}

const NO_HISTORY = { registeredAt: null, lastSeenAt: null, identifierUpdatedAt: null, permissionUpdatedAt: null, invalidatedAt: null, invalidReason: null };

/** The cells of a record by header name; a missing or empty cell is undefined. */
class Columns {
  private readonly index = new Map<string, number>();

  constructor(header: string[]) {
    header.forEach((name, i) => this.index.set(name.trim().toLowerCase(), i));
  }

  has(name: string): boolean {
    return this.index.has(name);
  }

  get(cells: string[], name: string): string | undefined {
    const at = this.index.get(name);
    const value = at === undefined ? undefined : cells[at]?.trim();
    return value === '' ? undefined : value;
  }

  check(cells: string[], width: number): void {
    if (cells.length !== width) throw new LineRefused(`expected ${width} columns as in the header, found ${cells.length}`);
  }
}

function requireColumns(columns: Columns, names: readonly string[], format: string): void {
  const missing = names.filter((name) => !columns.has(name));
  if (missing.length > 0) throw new LineRefused(`not a ${format} file: the header lacks ${missing.join(', ')}`);
}

/**
 * OneSignal's subscriber CSV export (POST /players/csv_export, documentation.onesignal.com/reference/csv-export):
 * default columns id, identifier, session_count, language, timezone, game_version, device_os, device_type,
 * device_model, ad_id, tags, last_active, playtime, amount_spent, created_at, invalid_identifier, badge_count;
 * extra columns external_user_id, notification_types, location, country, rooted, ip, web_auth, web_p256 (and timezone_id).
 */
export const ONESIGNAL_DEVICE_TYPES: Record<string, { platform: 'ios' | 'android' | 'web' | 'huawei' } | { unsupported: string }> = {
  '0': { platform: 'ios' },
  '1': { platform: 'android' },
  '2': { unsupported: 'Amazon (ADM)' },
  '3': { unsupported: 'Windows Phone (MPNS)' },
  '4': { unsupported: 'Chrome Apps and Extensions' },
  '5': { platform: 'web' },
  '6': { unsupported: 'Windows (WNS)' },
  '7': { platform: 'web' },
  '8': { platform: 'web' },
  '9': { unsupported: 'macOS' },
  '10': { unsupported: 'Alexa' },
  '11': { unsupported: 'email' },
  '13': { platform: 'huawei' },
  '14': { unsupported: 'SMS' },
};

class OneSignalReader implements FormatReader {
  private columns!: Columns;
  private width = 0;

  header(first: string[]): boolean {
    this.columns = new Columns(first);
    this.width = first.length;
    requireColumns(this.columns, ['id', 'identifier', 'device_type'], 'OneSignal export');
    return true;
  }

  read(cells: string[]): ImportedLine {
    this.columns.check(cells, this.width);
    const cell = (name: string) => this.columns.get(cells, name);
    const id = cell('id');
    if (!id) throw new LineRefused('id is empty');
    const code = cell('device_type') ?? '';
    const type = ONESIGNAL_DEVICE_TYPES[code];
    if (!type) throw new LineRefused(`device_type ${code || '(empty)'} is not a OneSignal device type`);
    if ('unsupported' in type) throw new LineRefused(`device_type ${code} (${type.unsupported}) is not a push channel this service sends to`);
    if (cell('invalid_identifier') === 't') throw new LineRefused('unsubscribed in OneSignal (invalid_identifier = t)');
    const identifier = cell('identifier');
    if (!identifier) throw new LineRefused('identifier (the push token) is empty');
    const body: Record<string, unknown> = { platform: type.platform };
    if (type.platform === 'web') {
      // Safari's legacy push (device_type 7 before Web Push) has an APNs token, not an endpoint.
      if (!/^https:\/\//.test(identifier))
        throw new LineRefused(`device_type ${code}: the identifier is not a Web Push endpoint (legacy Safari push is not supported)`);
      const p256dh = cell('web_p256');
      const auth = cell('web_auth');
      if (!p256dh || !auth) throw new LineRefused('a web subscription without keys (export with the extra fields web_auth and web_p256)');
      body.web_push_subscription = { endpoint: identifier, keys: { p256dh, auth } };
    } else {
      body.push_token = identifier;
    }
    const device = dropEmpty({
      app_version: cell('game_version'),
      os_version: cell('device_os'),
      model: cell('device_model'),
      locale: cell('language'),
      timezone: cell('timezone_id') ?? zoneOfOffset(cell('timezone')),
    });
    if (Object.keys(device).length > 0) body.device = device;
    const user = cell('external_user_id');
    if (user) body.user_id = user;
    const types = cell('notification_types');
    body.permission = types !== undefined && Number(types) < 0 ? 'denied' : 'granted';
    const tags = cell('tags');
    if (tags) body.properties = propertiesOfTags(tags);
    const badge = cell('badge_count');
    if (badge !== undefined && type.platform === 'ios') body.badge = integer(badge, 'badge_count');
    return {
      ...NO_HISTORY,
      installationId: id,
      body,
      registeredAt: date(cell('created_at'), 'created_at'),
      lastSeenAt: date(cell('last_active'), 'last_active'),
    };
  }
}

/** OneSignal's `timezone` is seconds from UTC; whole hours become IANA's Etc/GMT zones (whose sign is inverted), others are left unset. */
export function zoneOfOffset(seconds: string | undefined): string | undefined {
  if (seconds === undefined || !/^-?\d+$/.test(seconds)) return undefined;
  const hours = Number(seconds) / 3600;
  if (!Number.isInteger(hours) || hours < -12 || hours > 14) return undefined;
  return hours === 0 ? 'Etc/UTC' : `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`;
}

/**
 * OneSignal tags become properties (docs/api.md#properties): a key is lower-cased and every run of
 * characters outside `a-z 0-9 _` becomes `_` (a key not starting with a letter gets `t_` before it);
 * a value that reads as a plain decimal number becomes a number, `true`/`false` stay strings.
 */
export function propertiesOfTags(text: string): Record<string, unknown> {
  let tags: unknown;
  try {
    tags = JSON.parse(text);
  } catch {
    throw new LineRefused('tags is not JSON');
  }
  if (typeof tags !== 'object' || tags === null || Array.isArray(tags)) throw new LineRefused('tags is not a JSON object');
  const properties: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(tags)) {
    let key = name
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_')
      .slice(0, 64);
    if (!/^[a-z]/.test(key)) key = `t_${key}`.slice(0, 64);
    if (Object.hasOwn(properties, key)) throw new LineRefused(`tags "${name}" and another tag both become the property ${key}`);
    properties[key] = typeof value === 'string' && /^-?(0|[1-9]\d{0,14})(\.\d{1,6})?$/.test(value) ? Number(value) : value;
  }
  return properties;
}

/**
 * A Firebase-style CSV: `token,platform[,user_id]`, with or without that header. FCM tokens are
 * `android`; `ios` takes an APNs device token (an FCM token of an iOS app is refused: this service
 * reaches iOS through APNs). The installation id is `fcm-` and the first 32 hex digits of the
 * token's SHA-256, so a re-run finds the same installations.
 */
class FirebaseReader implements FormatReader {
  header(first: string[]): boolean {
    return first[0]?.trim().toLowerCase() === 'token';
  }

  read(cells: string[]): ImportedLine {
    if (cells.length < 2 || cells.length > 3) throw new LineRefused(`expected token,platform[,user_id], found ${cells.length} columns`);
    const token = cells[0].trim();
    const platform = cells[1].trim().toLowerCase();
    const user = cells[2]?.trim();
    if (!token) throw new LineRefused('token is empty');
    if (platform !== 'android' && platform !== 'ios') throw new LineRefused(`platform "${cells[1].trim()}" is neither android nor ios`);
    if (platform === 'ios' && !/^[0-9a-f]{64,200}$/i.test(token)) {
      throw new LineRefused('an ios line needs an APNs device token (hex); an FCM token of an iOS app cannot be sent through APNs');
    }
    const body: Record<string, unknown> = { platform, push_token: token, permission: 'granted' };
    if (user) body.user_id = user;
    return { ...NO_HISTORY, installationId: firebaseInstallationId(token), body };
  }
}

export function firebaseInstallationId(token: string): string {
  return `fcm-${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
}

/** Our own CSV (installation-csv.ts), as `pns export` writes it. */
class OwnCsvReader implements FormatReader {
  private columns!: Columns;
  private width = 0;

  header(first: string[]): boolean {
    this.columns = new Columns(first);
    this.width = first.length;
    const unknown = first.map((name) => name.trim().toLowerCase()).filter((name) => !(INSTALLATION_CSV_COLUMNS as readonly string[]).includes(name));
    if (unknown.length > 0) throw new LineRefused(`not an installation CSV: unknown columns ${unknown.join(', ')}`);
    requireColumns(this.columns, ['installation_id', 'platform'], 'installation CSV');
    return true;
  }

  read(cells: string[]): ImportedLine {
    this.columns.check(cells, this.width);
    const cell = (name: string) => this.columns.get(cells, name);
    const installationId = cell('installation_id');
    if (!installationId) throw new LineRefused('installation_id is empty');
    const body: Record<string, unknown> = dropEmpty({
      platform: cell('platform'),
      push_provider: cell('push_provider'),
      push_token: cell('push_token'),
      widget_push_token: cell('widget_push_token'),
      user_id: cell('user_id'),
      permission: cell('permission'),
    });
    const endpoint = cell('web_push_endpoint');
    if (endpoint) body.web_push_subscription = { endpoint, keys: dropEmpty({ p256dh: cell('web_push_p256dh'), auth: cell('web_push_auth') }) };
    const device = dropEmpty({
      app_version: cell('app_version'),
      os_version: cell('os_version'),
      model: cell('model'),
      locale: cell('locale'),
      timezone: cell('timezone'),
    });
    if (Object.keys(device).length > 0) body.device = device;
    for (const name of ['tags', 'properties', 'live_activity_start_tokens']) {
      const text = cell(name);
      if (text !== undefined) body[name] = json(text, name);
    }
    const badge = cell('badge');
    if (badge !== undefined) body.badge = integer(badge, 'badge');
    return {
      installationId,
      body,
      registeredAt: date(cell('registered_at'), 'registered_at'),
      lastSeenAt: date(cell('last_seen_at'), 'last_seen_at'),
      identifierUpdatedAt: date(cell('identifier_updated_at'), 'identifier_updated_at'),
      permissionUpdatedAt: date(cell('permission_updated_at'), 'permission_updated_at'),
      invalidatedAt: date(cell('invalidated_at'), 'invalidated_at'),
      invalidReason: cell('invalid_reason') ?? null,
    };
  }
}

function dropEmpty<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function json(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new LineRefused(`${name} is not JSON`);
  }
}

function integer(text: string, name: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new LineRefused(`${name} is not a whole number`);
  return Number(text);
}

const TIMESTAMP = /^\d{4}-\d\d-\d\d([ T]\d\d:\d\d(:\d\d(\.\d+)?)?)?\s*(Z|UTC|[+-]\d\d(:?\d\d)?)?$/i;

/** ISO 8601 or `YYYY-MM-DD hh:mm:ss[.fff][zone]` (UTC without a zone), or Unix seconds; null when empty. */
export function date(text: string | undefined, name: string): Date | null {
  if (text === undefined) return null;
  let at: Date;
  if (/^\d{9,11}$/.test(text)) at = new Date(Number(text) * 1000);
  else if (TIMESTAMP.test(text)) {
    const zoned = /(Z|UTC|[+-]\d\d(:?\d\d)?)$/i.test(text) ? text.replace(/\s*UTC$/i, 'Z') : `${text}${text.length > 10 ? 'Z' : 'T00:00:00Z'}`;
    at = new Date(zoned.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  } else throw new LineRefused(`${name} is not a date`);
  if (Number.isNaN(at.getTime())) throw new LineRefused(`${name} is not a date`);
  return at;
}
