import { cookieValue, newSessionTokens, sameToken, sessionKey, sessionLookup } from './admin-session';

const APP_KEY = Buffer.alloc(32, 7).toString('base64');
const key = sessionKey(APP_KEY, 'ops', 'secret');

describe('admin sessions', () => {
  it('looks a token up by a keyed hash: other credentials give another, garbage none', () => {
    const { token } = newSessionTokens();
    expect(sessionLookup(key, token)).toEqual(sessionLookup(key, token));
    expect(sessionLookup(sessionKey(APP_KEY, 'ops', 'other'), token)).not.toEqual(sessionLookup(key, token));
    for (const bad of [undefined, '', 'x', `${token}.x`, token.slice(1)]) expect(sessionLookup(key, bad)).toBeNull();
  });

  it('gives each login its own tokens', () => {
    const [a, b] = [newSessionTokens(), newSessionTokens()];
    expect(a.token).not.toBe(b.token);
    expect(a.csrf).not.toBe(b.csrf);
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
