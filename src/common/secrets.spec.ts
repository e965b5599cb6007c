import { CENSOR, censorSecretValues, isSecretKey, redactUrl, scrubSecrets } from './secrets';

describe('scrubSecrets', () => {
  it('censors secret-named keys at any depth, in objects and arrays, and keeps the rest', () => {
    const input = {
      app_id: 'a',
      token_id: 't',
      tokenId: 't2',
      nested: [{ apns: { private_key: 'p8', key_id: 'K' } }, { vapidPrivateKey: 'v' }],
      deep: { a: { b: { c: { password: 'pw', client_secret: 's', note: 'ok' } } } },
      authorization: 'Bearer pns_x',
      pushToken: 'abc',
      empty: { secret: null },
    };
    expect(scrubSecrets(input)).toEqual({
      app_id: 'a',
      token_id: 't',
      tokenId: 't2',
      nested: [{ apns: { private_key: CENSOR, key_id: 'K' } }, { vapidPrivateKey: CENSOR }],
      deep: { a: { b: { c: { password: CENSOR, client_secret: CENSOR, note: 'ok' } } } },
      authorization: CENSOR,
      pushToken: CENSOR,
      empty: { secret: null },
    });
    // The input itself is left alone: it may be a live object of the caller.
    expect(input.authorization).toBe('Bearer pns_x');
  });

  it('leaves class instances (errors, buffers) to their serializers', () => {
    const error = new Error('boom');
    const out = scrubSecrets({ err: error });
    expect(out.err).toBe(error);
  });

  it.each([
    'token',
    'push_token',
    'web_push_subscription',
    'private_key',
    'apns_private_key',
    'APP_KEY',
    'api_key',
    'refresh_token',
    'Cookie',
    // Header names join their words with hyphens.
    'X-Api-Key',
    'x-access-token',
    'app-key',
    'app-key-previous',
  ])('%s is a secret key', (key) => expect(isSecretKey(key)).toBe(true));

  it.each(['token_id', 'tokenId', 'app_id', 'installation_id', 'key_id', 'user_id', 'tokens'])('%s is not', (key) => expect(isSecretKey(key)).toBe(false));
});

describe('redactUrl', () => {
  it.each([
    ['/a?access_token=pns_x&limit=5', '/a?access_token=[Redacted]&limit=5'],
    ['/a?limit=5&token=abc#frag', '/a?limit=5&token=[Redacted]#frag'],
    ['/a?api%5Fkey=1&ACCESS_TOKEN=2&a[access_token]=3', '/a?api%5Fkey=[Redacted]&ACCESS_TOKEN=[Redacted]&a[access_token]=[Redacted]'],
    ['/a?token_id=t&cursor=c', '/a?token_id=t&cursor=c'],
    ['/a/token=b', '/a/token=b'],
    ['/a?bad%E0=1&token', '/a?bad%E0=1&token'],
  ])('%s', (url, expected) => expect(redactUrl(url)).toBe(expected));
});

describe('secrets by their shape (issue 26 item 5)', () => {
  const token = 'pns_' + 'aB3'.repeat(15);
  it.each(['api_token', 'bearer', 'auth', 'X-Auth-Token', 'X-Token', 'Api-Token', 'Bearer'])('%s is a secret key', (key) =>
    expect(isSecretKey(key)).toBe(true),
  );

  it('censors our tokens, identity and webhook secrets wherever they sit', () => {
    expect(scrubSecrets({ note: `was ${token} then`, list: ['idv_' + 'x'.repeat(32)], n: 3 })).toEqual({ note: `was ${CENSOR} then`, list: [CENSOR], n: 3 });
    expect(censorSecretValues('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw=')).toBe(CENSOR);
    expect(redactUrl(`/api/v1/notifications/${token}?page=${token}`)).toBe(`/api/v1/notifications/${CENSOR}?page=${CENSOR}`);
    // Short look-alikes (the session cookie's name) are left alone.
    expect(censorSecretValues('pns_admin=1')).toBe('pns_admin=1');
  });
});
