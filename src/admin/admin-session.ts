import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Grant } from '../operators/operators.repository';

// The cookie holds a random token; the database holds its HMAC under a key from APP_KEY and the
// bootstrap credentials, so changing either ends every session, and a stolen table opens none.
// The CSRF token comes back in X-CSRF-Token.
export const SESSION_COOKIE = 'pns_admin';
export const CSRF_HEADER = 'x-csrf-token';
export const SESSION_SECONDS = 12 * 3600;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A signed-in operator as the guard sees it: who, and the roles they hold (docs/api.md#273-roles). */
export interface SessionOperator {
  id: string;
  email: string;
  grants: Grant[];
}

export interface AdminSession {
  id: string;
  csrf: string;
  expiresAt: Date;
  operator: SessionOperator;
}

export function sessionKey(appKey: string, user: string, password: string): Buffer {
  const salt = createHash('sha256').update(`${user}\0${password}`).digest();
  return Buffer.from(hkdfSync('sha256', Buffer.from(appKey, 'base64'), salt, 'pns admin session v2', 32));
}

/** A new session's cookie token and CSRF token. */
export function newSessionTokens(): { token: string; csrf: string } {
  return { token: randomBytes(32).toString('base64url'), csrf: randomBytes(16).toString('base64url') };
}

/** What the database stores for a cookie token; null for anything not shaped like one. */
export function sessionLookup(key: Buffer, token: string | undefined): Buffer | null {
  if (!token || !TOKEN.test(token)) return null;
  return createHmac('sha256', key).update(token).digest();
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
