import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

// `<expiry s>.<CSRF token>.<MAC>`, the MAC under a key from APP_KEY and the admin credentials: stateless, and changing
// either ends every session. The CSRF token comes back in X-CSRF-Token.
export const SESSION_COOKIE = 'pns_admin';
export const CSRF_HEADER = 'x-csrf-token';
export const SESSION_SECONDS = 12 * 3600;

const TOKEN = /^(\d{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export interface AdminSession {
  csrf: string;
  expiresAt: Date;
}

export function sessionKey(appKey: string, user: string, password: string): Buffer {
  const salt = createHash('sha256').update(`${user}\0${password}`).digest();
  return Buffer.from(hkdfSync('sha256', Buffer.from(appKey, 'base64'), salt, 'pns admin session v1', 32));
}

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

export function issueSession(key: Buffer, now = Date.now()): { token: string; session: AdminSession } {
  const expires = Math.floor(now / 1000) + SESSION_SECONDS;
  const csrf = randomBytes(16).toString('base64url');
  const payload = `${expires}.${csrf}`;
  return { token: `${payload}.${mac(key, payload)}`, session: { csrf, expiresAt: new Date(expires * 1000) } };
}

/** Null when malformed, forged or expired. */
export function verifySession(key: Buffer, token: string | undefined, now = Date.now()): AdminSession | null {
  const match = token ? TOKEN.exec(token) : null;
  if (!match) return null;
  const [, expires, csrf, given] = match;
  const expected = Buffer.from(mac(key, `${expires}.${csrf}`));
  if (!timingSafeEqual(Buffer.from(given), expected)) return null;
  if (Number(expires) * 1000 <= now) return null;
  return { csrf, expiresAt: new Date(Number(expires) * 1000) };
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sameToken(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A safe method, or the session's X-CSRF-Token: the one CSRF check of both dashboards. */
export function csrfHeld(req: { method: string; header(name: string): string | undefined }, session: AdminSession): boolean {
  return SAFE_METHODS.has(req.method) || sameToken(req.header(CSRF_HEADER), session.csrf);
}
