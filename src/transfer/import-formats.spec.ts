import { date, firebaseInstallationId, formatReader, LineRefused, propertiesOfTags, zoneOfOffset } from './import-formats';

/** The formats' own reading (docs/api.md#import); the installations' rules and the writing are tested against the database (test/e2e/cli-import-export.e2e-spec.ts). */
describe('import formats', () => {
  it('turns OneSignal tags into properties: keys normalised, plain decimals as numbers', () => {
    expect(propertiesOfTags('{"Level":"5","First Name":"Ann","zip":"007","score":"-2.5","9lives":"yes","vip":"true"}')).toEqual({
      level: 5,
      first_name: 'Ann',
      zip: '007',
      score: -2.5,
      t_9lives: 'yes',
      vip: 'true',
    });
    expect(() => propertiesOfTags('{"a b":"1","a-b":"2"}')).toThrow('tags "a-b" and another tag both become the property a_b');
    expect(() => propertiesOfTags('[1]')).toThrow('tags is not a JSON object');
    expect(() => propertiesOfTags('{')).toThrow('tags is not JSON');
  });

  it('names whole-hour offsets as IANA Etc zones (inverted sign) and leaves others unset', () => {
    expect(zoneOfOffset('-28800')).toBe('Etc/GMT+8');
    expect(zoneOfOffset('3600')).toBe('Etc/GMT-1');
    expect(zoneOfOffset('0')).toBe('Etc/UTC');
    expect(zoneOfOffset('19800')).toBeUndefined();
    expect(zoneOfOffset('abc')).toBeUndefined();
  });

  it('reads OneSignal, ISO and Unix times, UTC without a zone', () => {
    expect(date('2025-01-02 03:04:05', 'created_at')).toEqual(new Date('2025-01-02T03:04:05Z'));
    expect(date('2025-01-02 03:04:05.123+02', 'created_at')).toEqual(new Date('2025-01-02T01:04:05.123Z'));
    expect(date('2025-01-02T03:04:05Z', 'created_at')).toEqual(new Date('2025-01-02T03:04:05Z'));
    expect(date('1735787045', 'created_at')).toEqual(new Date('2025-01-02T03:04:05Z'));
    expect(date(undefined, 'created_at')).toBeNull();
    expect(() => date('yesterday', 'created_at')).toThrow(new LineRefused('created_at is not a date'));
  });

  it('maps each OneSignal device type, and refuses the channels this service does not send to', () => {
    const reader = formatReader('onesignal');
    reader.header(['id', 'identifier', 'device_type', 'web_auth', 'web_p256']);
    expect(reader.read(['a', 'f'.repeat(64), '0', '', '']).body).toMatchObject({ platform: 'ios', push_token: 'f'.repeat(64) });
    expect(reader.read(['b', 'tok', '13', '', '']).body).toMatchObject({ platform: 'huawei' });
    expect(reader.read(['c', 'https://push.example/x', '8', 'au', 'p2']).body).toMatchObject({
      platform: 'web',
      web_push_subscription: { endpoint: 'https://push.example/x', keys: { p256dh: 'p2', auth: 'au' } },
    });
    expect(() => reader.read(['d', 'x', '2', '', ''])).toThrow('device_type 2 (Amazon (ADM)) is not a push channel this service sends to');
    expect(() => reader.read(['e', 'x', '99', '', ''])).toThrow('device_type 99 is not a OneSignal device type');
    expect(() => reader.read(['f', 'apns-token', '7', '', ''])).toThrow(/legacy Safari push is not supported/);
  });

  it('gives a Firebase line a stable id of its token', () => {
    expect(firebaseInstallationId('tok')).toBe(firebaseInstallationId('tok'));
    expect(firebaseInstallationId('tok')).toMatch(/^fcm-[0-9a-f]{32}$/);
    const reader = formatReader('firebase');
    expect(reader.header(['token', 'platform'])).toBe(true);
    expect(formatReader('firebase').header(['tok', 'android'])).toBe(false);
  });
});
