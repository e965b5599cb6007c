import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { isUuid } from '../common/uuid';

/** Opaque, signed list cursors: `<payload>.<mac>`, both base64url. */

export interface CursorPosition {
  /** created_at as whole microseconds since 1970-01-01T00:00:00Z, in decimal. */
  createdAtMicros: string;
  id: string;
}

/** Why a cursor was refused; the caller answers 422 on `cursor`. */
export class InvalidCursorError extends Error {}

const MAC_BYTES = 16;
/** 0 up to 9999-12-31T23:59:59.999999Z: a created_at the service can have written. */
const MAX_MICROS = 253_402_300_799_999_999n;
const MICROS = /^(0|[1-9]\d{0,17})$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** HKDF-SHA256 of APP_KEY bound to `purpose`, so one list's cursor is refused by another. */
export function cursorKey(appKey: string, purpose = 'pns list cursor v1'): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(appKey, 'base64'), Buffer.alloc(0), purpose, 32));
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
}

/** Signs any payload text; encodeCursor (and trace-cursor.ts) are the only callers outside tests. */
export function sealCursor(key: Buffer, payload: string): string {
  return `${Buffer.from(payload).toString('base64url')}.${mac(key, payload).toString('base64url')}`;
}

export function encodeCursor(key: Buffer, position: CursorPosition): string {
  return sealCursor(key, `${position.createdAtMicros}:${position.id}`);
}

/** The payload text of a cursor signed with `key`, or InvalidCursorError for anything this service did not issue. The caller still checks every part of it. */
export function openCursor(key: Buffer, cursor: string): string {
  const parts = cursor.split('.');
  if (parts.length !== 2 || !BASE64URL.test(parts[0]) || !BASE64URL.test(parts[1])) throw new InvalidCursorError('malformed');
  const payload = Buffer.from(parts[0], 'base64url');
  const given = Buffer.from(parts[1], 'base64url');
  const text = payload.toString('utf8');
  // Re-encoding must give back the same text: no padding, stray bits or invalid UTF-8 slip through.
  if (payload.toString('base64url') !== parts[0] || given.toString('base64url') !== parts[1]) throw new InvalidCursorError('malformed');
  if (given.length !== MAC_BYTES || !timingSafeEqual(given, mac(key, text))) throw new InvalidCursorError('bad signature');
  return text;
}

/** The position a cursor names, or InvalidCursorError for anything this service did not issue. */
export function decodeCursor(key: Buffer, cursor: string): CursorPosition {
  const fields = openCursor(key, cursor).split(':');
  if (fields.length !== 2) throw new InvalidCursorError('wrong number of parts');
  const [micros, id] = fields;
  if (!MICROS.test(micros) || BigInt(micros) > MAX_MICROS) throw new InvalidCursorError('bad timestamp');
  // Lower case only, as PostgreSQL prints ids: a cursor has exactly one spelling.
  if (!isUuid(id) || id !== id.toLowerCase()) throw new InvalidCursorError('bad id');
  return { createdAtMicros: micros, id };
}
