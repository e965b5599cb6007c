import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The operator dashboard's session, held by the browser in an HttpOnly, SameSite=Strict cookie:
 * `<expiry, Unix seconds>.<CSRF token>.<MAC>`. The MAC is HMAC-SHA256 under a key derived from
 * APP_KEY and the admin credentials, so nothing is stored server side, any api process can check
 * it, and changing ADMIN_USER or ADMIN_PASSWORD (or APP_KEY) ends every session. The CSRF token
 * is random per login: the page reads it from the session answer and sends it back in
 * X-CSRF-Token on every state-changing call; another site can neither read it nor set the header.
 */
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

/** The session a token names, or null when it is malformed, forged or expired. */
export function verifySession(key: Buffer, token: string | undefined, now = Date.now()): AdminSession | null {
  const match = token ? TOKEN.exec(token) : null;
  if (!match) return null;
  const [, expires, csrf, given] = match;
  const expected = Buffer.from(mac(key, `${expires}.${csrf}`));
  if (!timingSafeEqual(Buffer.from(given), expected)) return null;
  if (Number(expires) * 1000 <= now) return null;
  return { csrf, expiresAt: new Date(Number(expires) * 1000) };
}

/** One cookie's value from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The same strings, compared in constant time (CSRF tokens). */
export function sameToken(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The methods that need no CSRF token. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request may go on with its session: a safe method, or the session's X-CSRF-Token.
 * The one CSRF check of the dashboard's API (AdminGuard) and of the queue dashboard.
 */
export function csrfHeld(req: { method: string; header(name: string): string | undefined }, session: AdminSession): boolean {
  return SAFE_METHODS.has(req.method) || sameToken(req.header(CSRF_HEADER), session.csrf);
}
