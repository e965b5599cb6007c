import { cookieValue, issueSession, sameToken, sessionKey, SESSION_SECONDS, verifySession } from './admin-session';

const APP_KEY = Buffer.alloc(32, 7).toString('base64');
const key = sessionKey(APP_KEY, 'ops', 'secret');

describe('admin sessions', () => {
  it('verifies what it issued, until it expires', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    const { token, session } = issueSession(key, now);
    expect(verifySession(key, token, now + 1000)).toEqual(session);
    expect(verifySession(key, token, now + SESSION_SECONDS * 1000 + 1000)).toBeNull();
  });

  it('refuses a token signed under other credentials, a changed one and garbage', () => {
    const { token } = issueSession(key);
    expect(verifySession(sessionKey(APP_KEY, 'ops', 'other'), token)).toBeNull();
    const [expires, csrf, mac] = token.split('.');
    expect(verifySession(key, `${Number(expires) + 1000}.${csrf}.${mac}`)).toBeNull();
    for (const bad of [undefined, '', 'x', `${expires}.${csrf}`, `${token}.x`]) expect(verifySession(key, bad)).toBeNull();
  });

  it('gives each login its own CSRF token', () => {
    expect(issueSession(key).session.csrf).not.toBe(issueSession(key).session.csrf);
  });

  it('reads one cookie of a Cookie header and compares tokens', () => {
    expect(cookieValue('a=1; pns_admin=abc.def; b=2', 'pns_admin')).toBe('abc.def');
    expect(cookieValue('pns_admin_x=1', 'pns_admin')).toBeUndefined();
    expect(cookieValue(undefined, 'pns_admin')).toBeUndefined();
    expect(sameToken('abc', 'abc')).toBe(true);
    expect(sameToken('abd', 'abc')).toBe(false);
    expect(sameToken(undefined, 'abc')).toBe(false);
  });
});
