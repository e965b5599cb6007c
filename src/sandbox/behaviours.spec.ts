import { Behaviours } from './behaviours';

describe('sandbox behaviours (docs/testing.md#behaviours)', () => {
  let now = 1_000_000;
  const behaviours = new Behaviours(() => now);
  beforeEach(() => behaviours.clear());

  it('answers each behaviour as APNs, FCM and Web Push do', () => {
    behaviours.set('gone', { behaviour: 'unregistered' });
    behaviours.set('bad', { behaviour: 'bad_token' });
    behaviours.set('slow', { behaviour: 'retry_after', seconds: 30 });
    expect([behaviours.apns('gone'), behaviours.fcm('gone'), behaviours.webPush('gone')]).toEqual([
      { status: 410, reason: 'Unregistered' },
      { status: 404, errorCode: 'UNREGISTERED', message: 'Requested entity was not found.' },
      { status: 410 },
    ]);
    expect([behaviours.apns('bad')?.reason, behaviours.fcm('bad')?.errorCode, behaviours.webPush('bad')?.status]).toEqual([
      'BadDeviceToken',
      'INVALID_ARGUMENT',
      404,
    ]);
    expect([behaviours.apns('slow'), behaviours.fcm('slow'), behaviours.webPush('slow')]).toEqual([
      { status: 429, reason: 'TooManyRequests', retryAfter: 30 },
      { status: 429, errorCode: 'QUOTA_EXCEEDED', retryAfter: 30 },
      { status: 429, retryAfter: 30 },
    ]);
    expect(behaviours.apns('other')).toBeUndefined();
  });

  it('lets a token override the behaviour for all, and ok clear it', () => {
    behaviours.set('*', { behaviour: 'bad_token' });
    behaviours.set('special', { behaviour: 'unregistered' });
    expect(behaviours.apns('anyone')?.reason).toBe('BadDeviceToken');
    expect(behaviours.apns('special')?.reason).toBe('Unregistered');
    expect(behaviours.set('*', { behaviour: 'ok' })).toEqual({ behaviour: 'ok' });
    expect(behaviours.apns('anyone')).toBeUndefined();
    expect(behaviours.list()).toEqual({ special: { behaviour: 'unregistered' } });
  });

  it('ends an outage when its seconds have passed on the clock, counting Retry-After down', () => {
    behaviours.set('*', { behaviour: 'outage', seconds: 10 });
    expect(behaviours.fcm('t')).toEqual({ status: 503, errorCode: 'UNAVAILABLE', retryAfter: 10 });
    now += 7_500;
    expect(behaviours.apns('t')).toEqual({ status: 503, reason: 'ServiceUnavailable', retryAfter: 3 });
    now += 2_500;
    expect([behaviours.apns('t'), behaviours.fcm('t'), behaviours.webPush('t')]).toEqual([undefined, undefined, undefined]);
    expect(behaviours.list()).toEqual({});
  });

  it.each([
    [{ behaviour: 'explode' }, /behaviour must be one of/],
    [{}, /behaviour must be one of/],
    [{ behaviour: 'retry_after' }, /seconds must be an integer from 1 to 86400/],
    [{ behaviour: 'outage', seconds: 1.5 }, /seconds must be an integer/],
    [{ behaviour: 'outage', seconds: 86_401 }, /seconds must be an integer/],
    [{ behaviour: 'bad_token', seconds: 3 }, /seconds is only for retry_after and outage/],
  ])('refuses %j', (input, message) => {
    expect(() => behaviours.set('t', input)).toThrow(message);
  });
});
