import { afterSignIn, attemptCookie, attemptKey, openAttempt, redirectUri, sealAttempt, signInEmail } from './admin-oidc';

const KEY = attemptKey('dGVzdC1rZXktdGVzdC1rZXktdGVzdC1rZXktdGVzdC0=');
const NOW = new Date('2026-11-29T12:00:00.000Z');
const ATTEMPT = { verifier: 'v'.repeat(43), state: 'state-1', nonce: 'nonce-1', expires: NOW.getTime() / 1000 + 600 };

describe('OIDC sign-in attempt and claims (docs/api.md#oidc)', () => {
  it('opens the attempt it sealed, until it expires', () => {
    const sealed = sealAttempt(KEY, ATTEMPT);
    expect(openAttempt(KEY, sealed, NOW)).toEqual(ATTEMPT);
    expect(openAttempt(KEY, sealed, new Date(NOW.getTime() + 600_000))).toBeNull();
  });

  it('refuses a changed, foreign-keyed, missing or malformed cookie', () => {
    const sealed = sealAttempt(KEY, ATTEMPT);
    const [payload, mac] = sealed.split('.');
    const changed = Buffer.from(JSON.stringify({ ...ATTEMPT, state: 'state-2' })).toString('base64url');
    expect(openAttempt(KEY, `${changed}.${mac}`, NOW)).toBeNull();
    expect(openAttempt(attemptKey(Buffer.alloc(32, 7).toString('base64')), sealed, NOW)).toBeNull();
    expect(openAttempt(KEY, undefined, NOW)).toBeNull();
    expect(openAttempt(KEY, payload, NOW)).toBeNull();
    expect(openAttempt(KEY, `${sealed}.x`, NOW)).toBeNull();
    const notJson = Buffer.from('{').toString('base64url');
    expect(openAttempt(KEY, sealAttempt(KEY, ATTEMPT).replace(payload, notJson), NOW)).toBeNull();
  });

  it('sets a Lax, HttpOnly cookie on the OIDC routes only, and clears it', () => {
    expect(attemptCookie('x.y', true)).toBe('pns_oidc=x.y; Path=/admin/api/oidc; HttpOnly; SameSite=Lax; Max-Age=600; Secure');
    expect(attemptCookie(null, false)).toBe('pns_oidc=; Path=/admin/api/oidc; HttpOnly; SameSite=Lax; Max-Age=0');
  });

  it('makes the redirect URL of PUBLIC_URL and sends refusals to the login page', () => {
    expect(redirectUri('https://push.example.com/')).toBe('https://push.example.com/admin/api/oidc/callback');
    expect(afterSignIn(null)).toBe('/admin');
    expect(afterSignIn('refused')).toBe('/admin?oidc_error=refused');
  });

  it('takes the e-mail unless it is missing or said unverified', () => {
    expect(signInEmail({ email: 'Ana@Example.com', email_verified: true })).toEqual({ email: 'Ana@Example.com' });
    expect(signInEmail({ email: 'ana@example.com' })).toEqual({ email: 'ana@example.com' });
    expect(signInEmail({ email: 'ana@example.com', email_verified: false })).toEqual({ error: 'unverified' });
    expect(signInEmail({})).toEqual({ error: 'no_email' });
    expect(signInEmail({ email: 42 })).toEqual({ error: 'no_email' });
  });
});
