import fc from 'fast-check';
import type { LookupAddress } from 'node:dns';
import { ENDPOINT_MESSAGES, isPublicAddress, PRIVATE_ADDRESS_CODE, WebPushHosts } from './web-push-hosts';

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '142.250.74.10', '2001:4860:4860::8888', '2a00:1450:4001::200e', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '192.0.0.8',
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    'fec0::1',
    '2001:db8::1',
    '100::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    '2001::1',
    '::127.0.0.1',
    'not an address',
    '',
  ])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('WebPushHosts.endpointProblem, default list', () => {
  const hosts = WebPushHosts.fromSetting(undefined);

  it.each([
    'https://fcm.googleapis.com/fcm/send/abc:APA91b',
    'https://android.googleapis.com/gcm/send/abc',
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
    'https://updates-autopush.stage.push.services.mozilla.com/wpush/v1/x',
    'https://web.push.apple.com/QGuQyavXutnMH',
    'https://wns2-par02p.notify.windows.com/w/?token=BQYAAA',
    'https://FCM.GoogleAPIs.com/fcm/send/x',
    'https://fcm.googleapis.com./fcm/send/x',
    'https://fcm.googleapis.com:443/fcm/send/x',
  ])('accepts %s', (endpoint) => {
    expect(hosts.endpointProblem(endpoint)).toBeNull();
  });

  it.each([
    ['http://fcm.googleapis.com/fcm/send/x', ENDPOINT_MESSAGES.https],
    ['wss://fcm.googleapis.com/x', ENDPOINT_MESSAGES.https],
    ['fcm.googleapis.com/x', ENDPOINT_MESSAGES.https],
    ['https://user:pass@fcm.googleapis.com/x', ENDPOINT_MESSAGES.credentials],
    ['https://user@fcm.googleapis.com/x', ENDPOINT_MESSAGES.credentials],
    ['https://127.0.0.1:3850/push', ENDPOINT_MESSAGES.address],
    ['https://8.8.8.8/push', ENDPOINT_MESSAGES.address],
    ['https://0x7f.1/push', ENDPOINT_MESSAGES.address],
    ['https://2130706433/push', ENDPOINT_MESSAGES.address],
    ['https://0177.0.0.1/push', ENDPOINT_MESSAGES.address],
    ['https://%31%32%37.0.0.1/push', ENDPOINT_MESSAGES.address],
    ['https://[::1]/push', ENDPOINT_MESSAGES.address],
    ['https://[::ffff:127.0.0.1]/push', ENDPOINT_MESSAGES.address],
    ['https://[fe80::1]/push', ENDPOINT_MESSAGES.address],
    ['https://169.254.169.254/latest/meta-data', ENDPOINT_MESSAGES.address],
    ['https://localhost/push', ENDPOINT_MESSAGES.address],
    ['https://LOCALHOST./push', ENDPOINT_MESSAGES.address],
    ['https://api.localhost/push', ENDPOINT_MESSAGES.address],
    ['https://intranet/push', ENDPOINT_MESSAGES.address],
    ['https://push.example.com/x', ENDPOINT_MESSAGES.notAllowed],
    ['https://fcm.googleapis.com.evil.example/x', ENDPOINT_MESSAGES.notAllowed],
    ['https://evilfcm.googleapis.com/x', ENDPOINT_MESSAGES.notAllowed],
    ['https://push.apple.com/x', ENDPOINT_MESSAGES.notAllowed],
    ['https://push.apple.com.evil.example/x', ENDPOINT_MESSAGES.notAllowed],
  ])('refuses %s', (endpoint, message) => {
    expect(hosts.endpointProblem(endpoint)).toBe(message);
  });
});

describe('WebPushHosts from WEB_PUSH_ALLOWED_HOSTS', () => {
  it('replaces the default list; an empty setting keeps the default', () => {
    const own = WebPushHosts.fromSetting(' localhost , .push.example.org ,');
    expect(own.entries).toEqual(['localhost', '.push.example.org']);
    expect(own.endpointProblem('https://localhost:4443/push/1')).toBeNull();
    expect(own.endpointProblem('https://a.push.example.org/x')).toBeNull();
    expect(own.endpointProblem('https://fcm.googleapis.com/x')).toBe(ENDPOINT_MESSAGES.notAllowed);
    expect(own.endpointProblem('https://127.0.0.1:4443/push/1')).toBe(ENDPOINT_MESSAGES.address);
    expect(WebPushHosts.fromSetting('').entries).toContain('fcm.googleapis.com');
    expect(WebPushHosts.fromSetting('127.0.0.1').endpointProblem('https://127.0.0.1:4443/push/1')).toBeNull();
  });

  it('its pattern for the OpenAPI document only matches endpoints the check accepts', () => {
    for (const hosts of [WebPushHosts.fromSetting(undefined), WebPushHosts.fromSetting('localhost,.push.example.org')]) {
      const pattern = new RegExp(hosts.endpointPattern());
      expect(pattern.test('https://fcm.googleapis.com/fcm/send/x')).toBe(hosts.allows('fcm.googleapis.com'));
      fc.assert(
        fc.property(fc.stringMatching(pattern), (endpoint) => {
          expect(hosts.endpointProblem(endpoint)).toBeNull();
        }),
        { numRuns: 300 },
      );
    }
  });
});

describe('WebPushHosts.lookup (the connect-time check)', () => {
  const dns =
    (answers: Record<string, string[]>) => (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => {
      const found = answers[hostname];
      if (!found) return callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
      callback(
        null,
        found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    };
  const lookup = (hosts: WebPushHosts, hostname: string, all = false) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
      hosts.lookup(hostname, { all }, (error: NodeJS.ErrnoException | null, address: unknown, family?: number) => resolve({ error, address, family })),
    );
  const answers = {
    'fcm.googleapis.com': ['142.250.74.10', '2a00:1450:4001::200e'],
    'web.push.apple.com': ['127.0.0.1'],
    'wns.notify.windows.com': ['20.42.0.1', '10.0.0.7'],
    localhost: ['127.0.0.1', '::1'],
  };

  it('hands the socket the address it checked', async () => {
    const hosts = WebPushHosts.fromSetting(undefined, dns(answers));
    expect(await lookup(hosts, 'fcm.googleapis.com')).toEqual({ error: null, address: '142.250.74.10', family: 4 });
    expect((await lookup(hosts, 'fcm.googleapis.com', true)).address).toEqual([
      { address: '142.250.74.10', family: 4 },
      { address: '2a00:1450:4001::200e', family: 6 },
    ]);
  });

  it('refuses a default-list host that resolves to a private address, even in part', async () => {
    const hosts = WebPushHosts.fromSetting(undefined, dns(answers));
    for (const host of ['web.push.apple.com', 'wns.notify.windows.com']) {
      const { error } = await lookup(hosts, host);
      expect(error?.code).toBe(PRIVATE_ADDRESS_CODE);
    }
    expect((await lookup(hosts, 'unknown.push.apple.com')).error?.code).toBe('ENOTFOUND');
  });

  it('trusts the hosts the operator listed wherever they resolve', async () => {
    const hosts = WebPushHosts.fromSetting('localhost,.push.apple.com', dns(answers));
    expect(await lookup(hosts, 'localhost')).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    expect(await lookup(hosts, 'web.push.apple.com')).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    // Not on their list: checked.
    expect((await lookup(hosts, 'wns.notify.windows.com')).error?.code).toBe(PRIVATE_ADDRESS_CODE);
  });
});

describe('WebPushHosts.endpointPattern and real endpoints', () => {
  it.each([
    'https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH',
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABh',
    'https://web.push.apple.com/QGuQyavXutnMH',
    'https://wns2-par02p.notify.windows.com/w/?token=BQYAAABk%2bV',
  ])('the default pattern matches %s', (endpoint) => {
    expect(new RegExp(WebPushHosts.fromSetting(undefined).endpointPattern(), 'u').test(endpoint)).toBe(true);
  });
});
