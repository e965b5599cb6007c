import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { OidcSignInError } from '../common/vocabulary';

// OIDC sign-in's pure parts (docs/api.md#oidc, docs/decisions/0035-oidc-sign-in.md): the attempt
// (PKCE verifier, state, nonce) lives in a short-lived cookie signed under a key from APP_KEY, so
// any api process can finish a sign-in another one started, and nothing is stored server side.

export const OIDC_ATTEMPT_COOKIE = 'pns_oidc';
export const OIDC_PATH = '/admin/api/oidc';
export const OIDC_CALLBACK_PATH = `${OIDC_PATH}/callback`;
/** How long a sign-in may take at the provider. */
export const OIDC_ATTEMPT_SECONDS = 600;

/** One sign-in in flight: what the callback checks the provider's answer against. */
export interface OidcAttempt {
  verifier: string;
  state: string;
  nonce: string;
  /** Epoch seconds after which the callback refuses it. */
  expires: number;
}

export function attemptKey(appKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(appKey, 'base64'), Buffer.alloc(0), 'pns admin oidc attempt v1', 32));
}

const sign = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

/** The cookie value of an attempt: its JSON in base64url, a dot, and its HMAC. */
export function sealAttempt(key: Buffer, attempt: OidcAttempt): string {
  const payload = Buffer.from(JSON.stringify(attempt)).toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

/** The attempt of a cookie value: null when it is missing, forged, malformed or expired. */
export function openAttempt(key: Buffer, value: string | undefined, now = new Date()): OidcAttempt | null {
  const [payload, mac, ...rest] = (value ?? '').split('.');
  if (!payload || !mac || rest.length) return null;
  const expected = Buffer.from(sign(key, payload));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let attempt: OidcAttempt;
  try {
    attempt = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as OidcAttempt;
  } catch {
    return null;
  }
  const strings = [attempt.verifier, attempt.state, attempt.nonce].every((v) => typeof v === 'string' && v.length > 0);
  if (!strings || typeof attempt.expires !== 'number' || attempt.expires * 1000 <= now.getTime()) return null;
  return attempt;
}

/** The Set-Cookie of an attempt (null: cleared). SameSite=Lax: the provider's redirect back is a cross-site navigation. */
export function attemptCookie(value: string | null, secure: boolean): string {
  const attributes = [`Path=${OIDC_PATH}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${value ? OIDC_ATTEMPT_SECONDS : 0}`];
  if (secure) attributes.push('Secure');
  return [`${OIDC_ATTEMPT_COOKIE}=${value ?? ''}`, ...attributes].join('; ');
}

/** The redirect URL registered at the provider: PUBLIC_URL's origin and the callback's path. */
export const redirectUri = (publicUrl: string) => `${new URL(publicUrl).origin}${OIDC_CALLBACK_PATH}`;

/** The e-mail of verified ID token claims, or why there is none usable. */
export function signInEmail(claims: { email?: unknown; email_verified?: unknown }): { email: string } | { error: OidcSignInError } {
  if (typeof claims.email !== 'string' || !claims.email.includes('@')) return { error: 'no_email' };
  // Absent is accepted (some providers only give verified addresses); false is not.
  if (claims.email_verified !== undefined && claims.email_verified !== true && claims.email_verified !== 'true') return { error: 'unverified' };
  return { email: claims.email };
}

/** Where the browser goes after the callback: the dashboard, or its login page with the reason. */
export const afterSignIn = (error: OidcSignInError | null) => (error ? `/admin?oidc_error=${error}` : '/admin');
