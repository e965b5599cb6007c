// The three delivery providers against the loopback fakes, over real TLS (NODE_EXTRA_CA_CERTS=
// test/fakes/certs/ca.pem, as the npm test scripts set). Asserts what the fakes recorded: the exact
// payloads and headers of docs/api.md#what-a-device-receives, every outcome mapping, and connection / token reuse.
import { createHash, randomUUID } from 'node:crypto';
import { constants as h2, createSecureServer, type Http2SecureServer } from 'node:http2';
import { createServer as createTcpServer, connect as tcpConnect, type AddressInfo, type Server, type Socket } from 'node:net';
import webpush from 'web-push';
import type { EnvironmentVariables } from '../../src/config/env';
import type { ProviderCredentials } from '../../src/credentials/provider-credentials';
import type { PushContent } from '../../src/delivery/providers/payloads';
import { ApnsProvider } from '../../src/delivery/providers/apns.provider';
import { FcmProvider } from '../../src/delivery/providers/fcm.provider';
import type { DeliveryTarget } from '../../src/delivery/providers/push-provider';
import { WebPushProvider } from '../../src/delivery/providers/web-push.provider';
import { WebPushHosts } from '../../src/common/web-push-hosts';
import {
  FakeApns,
  FakeFcm,
  FakeWebPush,
  GOOGLE_TOKEN_URL,
  generateApnsKey,
  randomApnsToken,
  serverTlsOptions,
  type ApnsKey,
  type ServiceAccount,
} from '../fakes';

const TOPIC = 'com.example.pushapp';
const PROJECT_ID = 'push-e2e';

/**
 * A TCP relay in front of a TLS server, switchable between backends. The provider's APNs URL is
 * fixed for the whole file (the configuration is read once), so this is how a test makes the
 * "APNs" connection reset mid-stream or answer with GOAWAY; TLS still ends at the real backend.
 */
class TcpSwitch {
  backendPort = 0;
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  async start(backendPort: number): Promise<string> {
    this.backendPort = backendPort;
    const server = createTcpServer((client) => {
      const upstream = tcpConnect(this.backendPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Cuts every relayed connection at once, like a network failure. */
  resetAll(): void {
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  async stop(): Promise<void> {
    this.resetAll();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

function content(overrides: Partial<PushContent> = {}): PushContent {
  return {
    id: randomUUID(),
    title: 'Your order shipped',
    body: 'It arrives Thursday',
    image_url: null,
    action_url: null,
    data: null,
    options: null,
    ...overrides,
  };
}

const iosTarget = (pushToken: string): DeliveryTarget => ({ installationId: randomUUID(), pushToken, webPushSubscription: null });

function apnsCredentials(key: ApnsKey): ProviderCredentials {
  return {
    appId: randomUUID(),
    apns: { keyId: key.keyId, teamId: key.teamId, topic: TOPIC, production: false, privateKey: key.privateKeyPem },
    fcm: null,
    vapid: null,
    hms: null,
  };
}

const fakeApns = new FakeApns();
const fakeFcm = new FakeFcm();
const fakeWebPush = new FakeWebPush();
const fakeWebPushHttp1 = new FakeWebPush({ http2: false });
const apnsSwitch = new TcpSwitch();
let config: EnvironmentVariables;

beforeAll(async () => {
  const [apnsUrl] = await Promise.all([fakeApns.start(), fakeFcm.start(), fakeWebPush.start(), fakeWebPushHttp1.start()]);
  const relayUrl = await apnsSwitch.start(Number(new URL(apnsUrl).port));
  // The providers' configuration is given to them (in the service, by ConfigModule).
  config = { APNS_URL: relayUrl, FCM_URL: fakeFcm.baseUrl, GOOGLE_TOKEN_URL: fakeFcm.tokenUrl } as EnvironmentVariables;
  fakeApns.allowTopic(TOPIC);
});

afterAll(async () => {
  await apnsSwitch.stop();
  await Promise.all([fakeApns.stop(), fakeFcm.stop(), fakeWebPush.stop(), fakeWebPushHttp1.stop()]);
});

describe('ApnsProvider', () => {
  let provider: ApnsProvider;
  let key: ApnsKey;
  let credentials: ProviderCredentials;

  /** A signing key of its own per test: provider tokens are cached per key for the process. */
  function newKey(): ProviderCredentials {
    const fresh = generateApnsKey();
    fakeApns.addKey(fresh);
    return apnsCredentials(fresh);
  }

  beforeAll(() => {
    key = generateApnsKey();
    fakeApns.addKey(key);
    credentials = apnsCredentials(key);
  });

  beforeEach(() => {
    fakeApns.reset();
    fakeApns.delayMs = 0;
    provider = new ApnsProvider(config);
  });

  afterEach(() => provider.close());

  it('is configured only with APNs credentials', () => {
    expect(provider.platform).toBe('ios');
    expect(provider.configured(credentials)).toBe(true);
    expect(provider.configured({ ...credentials, apns: null })).toBe(false);
  });

  it('sends the docs/api.md#what-a-device-receives payload and headers for a full notification', async () => {
    const token = randomApnsToken();
    const message = content({
      image_url: 'https://cdn.example.com/box.png',
      action_url: 'myapp://orders/42',
      data: { order_id: 42, tags: ['a'] },
      options: { ttl: 3600, priority: 'normal', badge: 3, sound: 'default' },
    });
    const before = Math.floor(Date.now() / 1000);

    const outcome = await provider.send(credentials, message, iosTarget(token));

    expect(fakeApns.requests).toHaveLength(1);
    const [request] = fakeApns.requests;
    // docs/api.md#provider-message-ids: apns-id, then the sandbox's apns-unique-id.
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: `${request.apnsId} ${request.uniqueId}` });
    expect(request.token).toBe(token);
    expect(request.payload).toEqual({
      aps: { alert: { title: 'Your order shipped', body: 'It arrives Thursday' }, sound: 'default', badge: 3, 'mutable-content': 1 },
      notification_id: message.id,
      image_url: 'https://cdn.example.com/box.png',
      action_url: 'myapp://orders/42',
      data: { order_id: 42, tags: ['a'] },
    });
    expect(request.headers).toMatchObject({
      ':method': 'POST',
      ':path': `/3/device/${token}`,
      'apns-push-type': 'alert',
      'apns-topic': TOPIC,
      'apns-priority': '5',
      'apns-collapse-id': message.id,
    });
    const expiration = Number(request.headers['apns-expiration']);
    expect(expiration).toBeGreaterThanOrEqual(before + 3600);
    expect(expiration).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 3600);
    expect(request.headers.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('sends priority 10, a given collapse id, no expiration without ttl, and 0 for ttl 0', async () => {
    const minimal = content({ options: { collapse_id: 'order-42' } });
    await expect(provider.send(credentials, minimal, iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
    await expect(provider.send(credentials, content({ options: { ttl: 0, priority: 'high' } }), iosTarget(randomApnsToken()))).resolves.toMatchObject({
      kind: 'accepted',
    });

    const [first, second] = fakeApns.requests;
    expect(first.payload).toEqual({ aps: { alert: { title: 'Your order shipped', body: 'It arrives Thursday' } }, notification_id: minimal.id });
    expect(first.headers).toMatchObject({ 'apns-priority': '10', 'apns-collapse-id': 'order-42' });
    expect(first.headers).not.toHaveProperty('apns-expiration');
    expect(second.headers).toMatchObject({ 'apns-priority': '10', 'apns-expiration': '0' });
  });

  it.each([
    [
      { status: 410, reason: 'Unregistered' },
      { kind: 'invalid', reason: 'Unregistered' },
    ],
    [
      { status: 410, reason: 'ExpiredToken' },
      { kind: 'invalid', reason: 'ExpiredToken' },
    ],
    [
      { status: 400, reason: 'BadDeviceToken' },
      { kind: 'invalid', reason: 'BadDeviceToken' },
    ],
    [
      { status: 400, reason: 'DeviceTokenNotForTopic' },
      { kind: 'invalid', reason: 'DeviceTokenNotForTopic' },
    ],
    [
      { status: 429, reason: 'TooManyRequests', retryAfter: 7 },
      { kind: 'retry', reason: 'TooManyRequests', retryAfterMs: 7000 },
    ],
    [
      { status: 500, reason: 'InternalServerError' },
      { kind: 'retry', reason: 'InternalServerError' },
    ],
    [
      { status: 503, reason: 'ServiceUnavailable', retryAfter: 30 },
      { kind: 'retry', reason: 'ServiceUnavailable', retryAfterMs: 30000 },
    ],
    [
      { status: 413, reason: 'PayloadTooLarge' },
      { kind: 'failed', reason: 'PayloadTooLarge' },
    ],
    [
      { status: 400, reason: 'BadCollapseId' },
      { kind: 'failed', reason: 'BadCollapseId' },
    ],
    [
      { status: 403, reason: 'InvalidProviderToken' },
      { kind: 'failed', reason: 'InvalidProviderToken' },
    ],
  ])('maps %j to %j', async (step, outcome) => {
    const token = randomApnsToken();
    fakeApns.script(token, [step]);
    await expect(provider.send(credentials, content(), iosTarget(token))).resolves.toEqual(outcome);
    expect(fakeApns.requests.map((r) => r.status)).toEqual([step.status]);
  });

  it('maps answers APNs gives on its own: a non-hex token is invalid, an unknown topic failed', async () => {
    await expect(provider.send(credentials, content(), iosTarget('not-a-hex-token'))).resolves.toEqual({
      kind: 'invalid',
      reason: 'BadDeviceToken',
    });
    const otherTopic: ProviderCredentials = { ...credentials, apns: { ...credentials.apns!, topic: 'com.example.other' } };
    await expect(provider.send(otherTopic, content(), iosTarget(randomApnsToken()))).resolves.toEqual({
      kind: 'failed',
      reason: 'TopicDisallowed',
    });
  });

  it('fails without a device token or credentials, without calling APNs', async () => {
    await expect(provider.send(credentials, content(), { ...iosTarget(''), pushToken: null })).resolves.toEqual({
      kind: 'failed',
      reason: 'MissingDeviceToken',
    });
    await expect(provider.send({ ...credentials, apns: null }, content(), iosTarget(randomApnsToken()))).resolves.toEqual({
      kind: 'failed',
      reason: 'ApnsNotConfigured',
    });
    expect(fakeApns.requests).toHaveLength(0);
  });

  it('reuses one provider token across many sends and provider instances, and a few connections', async () => {
    const own = newKey();
    for (let batch = 0; batch < 3; batch++) {
      const outcomes = await Promise.all(Array.from({ length: 40 }, () => provider.send(own, content(), iosTarget(randomApnsToken()))));
      expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    }
    const other = new ApnsProvider(config);
    try {
      await expect(other.send(own, content(), iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
    } finally {
      other.close();
    }

    expect(fakeApns.deliveredCount()).toBe(121);
    expect(fakeApns.distinctJwts()).toBe(1);
    expect(provider.openSessions).toBeLessThanOrEqual(4);
    expect(fakeApns.sessions).toBeLessThanOrEqual(4 + 1);
  });

  it('refreshes the provider token once it is 40 minutes old, not before', async () => {
    const realNow = Date.now.bind(Date);
    const send = () => provider.send(own, content(), iosTarget(randomApnsToken()));
    const own = newKey();
    const spy = jest.spyOn(Date, 'now').mockImplementation(() => realNow() - 39 * 60_000);
    try {
      await expect(send()).resolves.toMatchObject({ kind: 'accepted' });
    } finally {
      spy.mockRestore();
    }
    await expect(send()).resolves.toMatchObject({ kind: 'accepted' });
    expect(fakeApns.distinctJwts()).toBe(1); // 39 minutes old: still used

    const aged = newKey();
    const agedSpy = jest.spyOn(Date, 'now').mockImplementation(() => realNow() - 41 * 60_000);
    try {
      await expect(provider.send(aged, content(), iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
    } finally {
      agedSpy.mockRestore();
    }
    fakeApns.reset();
    for (let i = 0; i < 3; i++) {
      await expect(provider.send(aged, content(), iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
    }
    // One new token after 41 minutes, then reused.
    expect(fakeApns.distinctJwts()).toBe(1);
    const [jwt] = fakeApns.requests.map((r) => r.jwt);
    expect(JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).iat).toBeGreaterThan(Math.floor(Date.now() / 1000) - 60);
  });

  it('on ExpiredProviderToken refreshes the token once and resends at once', async () => {
    const own = newKey();
    // The first signature a second and more ago: a refreshed token issued in the same second would
    // be byte-identical (same header, iss and iat) and the refresh would be invisible here.
    const realNow = Date.now.bind(Date);
    const spy = jest.spyOn(Date, 'now').mockImplementation(() => realNow() - 1100);
    try {
      await expect(provider.send(own, content(), iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
    } finally {
      spy.mockRestore();
    }
    const token = randomApnsToken();
    fakeApns.script(token, [{ status: 403, reason: 'ExpiredProviderToken' }]);
    await expect(provider.send(own, content(), iosTarget(token))).resolves.toMatchObject({ kind: 'accepted' });

    const forToken = fakeApns.requests.filter((r) => r.token === token);
    expect(forToken.map((r) => r.status)).toEqual([403, 200]);
    expect(forToken[0].jwt).not.toBe(forToken[1].jwt);
    // Later sends keep the refreshed token.
    await expect(provider.send(own, content(), iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
    expect(fakeApns.requests.at(-1)?.jwt).toBe(forToken[1].jwt);
    expect(fakeApns.distinctJwts()).toBe(2);
  });

  it('fails a stored key that cannot sign as InvalidProviderKey, sending nothing, every time', async () => {
    const broken = newKey();
    broken.apns = { ...broken.apns!, privateKey: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n' };
    for (let i = 0; i < 2; i++) {
      await expect(provider.send(broken, content(), iosTarget(randomApnsToken()))).resolves.toEqual({ kind: 'failed', reason: 'InvalidProviderKey' });
    }
    expect(fakeApns.requests).toHaveLength(0);
  });

  it('retries when ExpiredProviderToken persists after the refresh', async () => {
    const own = newKey();
    const token = randomApnsToken();
    fakeApns.script(token, [
      { status: 403, reason: 'ExpiredProviderToken' },
      { status: 403, reason: 'ExpiredProviderToken' },
    ]);
    await expect(provider.send(own, content(), iosTarget(token))).resolves.toEqual({ kind: 'retry', reason: 'ExpiredProviderToken' });
    expect(fakeApns.requests).toHaveLength(2);
  });

  it('delivers 500 concurrent near-4 KiB notifications over at most 4 connections', async () => {
    const own = newKey();
    const big = content({ data: { blob: 'x'.repeat(3500) } });
    fakeApns.delayMs = 20; // keeps streams in flight together
    const outcomes = await Promise.all(Array.from({ length: 500 }, () => provider.send(own, big, iosTarget(randomApnsToken()))));
    expect(outcomes.filter((o) => o.kind !== 'accepted')).toEqual([]);
    expect(fakeApns.deliveredCount()).toBe(500);
    expect(fakeApns.distinctJwts()).toBe(1);
    expect(fakeApns.sessions).toBeLessThanOrEqual(4);
  });

  it('retries a request that times out, and keeps the connection', async () => {
    provider.timeoutMs = 150;
    fakeApns.delayMs = 600;
    await expect(provider.send(credentials, content(), iosTarget(randomApnsToken()))).resolves.toEqual({
      kind: 'retry',
      reason: `Timeout ${new URL(fakeApns.baseUrl).hostname}`,
    });
    fakeApns.delayMs = 0;
    await expect(provider.send(credentials, content(), iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
  });

  it('retries when the connection is reset mid-stream, then reconnects', async () => {
    await expect(provider.send(credentials, content(), iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
    fakeApns.delayMs = 500;
    const pending = provider.send(credentials, content(), iosTarget(randomApnsToken()));
    await new Promise((resolve) => setTimeout(resolve, 100));
    apnsSwitch.resetAll();
    const outcome = await pending;
    expect(outcome.kind).toBe('retry');

    fakeApns.delayMs = 0;
    await expect(provider.send(credentials, content(), iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
  });

  describe('against a server that answers GOAWAY', () => {
    let goaway: Http2SecureServer;
    let fakePort: number;

    beforeAll(async () => {
      // Ends the connection at the first request, with that stream unprocessed (last id 0).
      goaway = createSecureServer({ ...serverTlsOptions(), allowHTTP1: false });
      goaway.on('stream', (stream) => {
        stream.on('error', () => undefined);
        stream.session?.goaway(h2.NGHTTP2_NO_ERROR, 0);
      });
      await new Promise<void>((resolve) => goaway.listen(0, '127.0.0.1', resolve));
      fakePort = apnsSwitch.backendPort;
    });

    afterAll(async () => {
      apnsSwitch.backendPort = fakePort;
      await new Promise<void>((resolve) => goaway.close(() => resolve()));
    });

    it('retries the refused stream, then uses a new connection', async () => {
      apnsSwitch.backendPort = (goaway.address() as AddressInfo).port;
      const outcome = await provider.send(credentials, content(), iosTarget(randomApnsToken()));
      expect(outcome).toMatchObject({ kind: 'retry' });

      apnsSwitch.backendPort = fakePort;
      await expect(provider.send(credentials, content(), iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
    });
  });

  it('close() drops every connection; a later send reconnects', async () => {
    await expect(provider.send(credentials, content(), iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
    expect(provider.openSessions).toBeGreaterThan(0);
    provider.close();
    expect(provider.openSessions).toBe(0);
    await expect(provider.send(credentials, content(), iosTarget(randomApnsToken()))).resolves.toMatchObject({ kind: 'accepted' });
  });
});

describe('FcmProvider', () => {
  let provider: FcmProvider;
  let account: ServiceAccount;
  let credentials: ProviderCredentials;
  const androidTarget = (token = `fcm-${randomUUID()}`): DeliveryTarget => ({
    installationId: randomUUID(),
    pushToken: token,
    webPushSubscription: null,
  });

  function fcmCredentials(serviceAccount: ServiceAccount): ProviderCredentials {
    return {
      appId: randomUUID(),
      apns: null,
      fcm: {
        projectId: serviceAccount.project_id,
        clientEmail: serviceAccount.client_email,
        privateKeyId: serviceAccount.private_key_id,
        privateKey: serviceAccount.private_key,
      },
      vapid: null,
      hms: null,
    };
  }

  beforeAll(() => {
    account = fakeFcm.createServiceAccount(PROJECT_ID);
    credentials = fcmCredentials(account);
  });

  beforeEach(() => {
    fakeFcm.reset();
    fakeFcm.delayMs = 0;
    provider = new FcmProvider(config);
  });

  it('is configured only with FCM credentials', () => {
    expect(provider.platform).toBe('android');
    expect(provider.configured(credentials)).toBe(true);
    expect(provider.configured({ ...credentials, fcm: null })).toBe(false);
  });

  it('sends the docs/api.md#what-a-device-receives v1 message: string data, notification_id, android options', async () => {
    const token = `fcm-${randomUUID()}`;
    const message = content({
      image_url: 'https://cdn.example.com/box.png',
      action_url: 'myapp://orders/42',
      data: { order_id: 42, text: 'plain', flag: true, nested: { a: [1, 2] }, nothing: null },
      options: { ttl: 3600, priority: 'normal' },
    });

    const outcome = await provider.send(credentials, message, androidTarget(token));

    expect(fakeFcm.requests).toHaveLength(1);
    const [request] = fakeFcm.requests;
    // docs/api.md#provider-message-ids: the message's name.
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: request.name });
    expect(request.projectId).toBe(PROJECT_ID);
    expect(request.message).toEqual({
      token,
      notification: { title: 'Your order shipped', body: 'It arrives Thursday', image: 'https://cdn.example.com/box.png' },
      data: {
        order_id: '42',
        text: 'plain',
        flag: 'true',
        nested: '{"a":[1,2]}',
        nothing: 'null',
        notification_id: message.id,
        action_url: 'myapp://orders/42',
      },
      android: { priority: 'NORMAL', ttl: '3600s', collapse_key: message.id },
    });
    expect(request.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
  });

  it('sends HIGH priority, no ttl when none is set, and a given collapse id', async () => {
    const message = content({ options: { collapse_id: 'order-42' } });
    await expect(provider.send(credentials, message, androidTarget())).resolves.toMatchObject({ kind: 'accepted' });
    expect(fakeFcm.requests[0].message).toMatchObject({
      notification: { title: 'Your order shipped', body: 'It arrives Thursday' },
      data: { notification_id: message.id },
      android: { priority: 'HIGH', collapse_key: 'order-42' },
    });
    expect((fakeFcm.requests[0].message as { android: object }).android).not.toHaveProperty('ttl');
  });

  it('fetches one access token (from GOOGLE_TOKEN_URL) for many concurrent sends', async () => {
    const fresh = fcmCredentials(fakeFcm.createServiceAccount(PROJECT_ID));
    for (let batch = 0; batch < 2; batch++) {
      const outcomes = await Promise.all(Array.from({ length: 100 }, () => provider.send(fresh, content(), androidTarget())));
      expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    }
    expect(fakeFcm.deliveredCount()).toBe(200);
    expect(fakeFcm.tokenRequests).toHaveLength(1);
    // The library's own assertion (audience = Google's URL), redirected to the fake by the transporter.
    expect(fakeFcm.tokenRequests[0]).toMatchObject({
      status: 200,
      iss: fresh.fcm!.clientEmail,
      aud: GOOGLE_TOKEN_URL,
      scope: 'https://www.googleapis.com/auth/firebase.messaging',
    });
    expect(new Set(fakeFcm.requests.map((r) => r.headers.authorization)).size).toBe(1);
  });

  it('fetches a new access token for each send while the one it holds is within the refresh margin', async () => {
    // Google's tokens last an hour; one that lasts 60 s is always inside the library's 5-minute
    // margin, so each send must ask again, as google-auth-library's getAccessToken would.
    fakeFcm.accessTokenTtlSeconds = 60;
    try {
      const expiring = fcmCredentials(fakeFcm.createServiceAccount(PROJECT_ID));
      for (let n = 0; n < 3; n++) await expect(provider.send(expiring, content(), androidTarget())).resolves.toMatchObject({ kind: 'accepted' });
      expect(fakeFcm.tokenRequests.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(new Set(fakeFcm.requests.map((r) => r.headers.authorization)).size).toBe(3);
    } finally {
      fakeFcm.accessTokenTtlSeconds = 3599;
    }
  });

  it('sends over HTTP/2: hundreds of concurrent sends share at most 4 connections', async () => {
    const outcomes = await Promise.all(Array.from({ length: 500 }, () => provider.send(credentials, content(), androidTarget())));

    expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    expect(new Set(fakeFcm.requests.map((r) => r.httpVersion))).toEqual(new Set(['2.0']));
    expect(provider.openSessions).toBeGreaterThan(0);
    expect(provider.openSessions).toBeLessThanOrEqual(4);
    provider.onModuleDestroy();
    expect(provider.openSessions).toBe(0);
  });

  it.each([
    [
      { status: 404, errorCode: 'UNREGISTERED' },
      { kind: 'invalid', reason: 'UNREGISTERED' },
    ],
    [
      { status: 400, errorCode: 'INVALID_ARGUMENT', message: 'The registration token is not a valid FCM registration token' },
      { kind: 'invalid', reason: 'INVALID_ARGUMENT' },
    ],
    [
      { status: 400, errorCode: 'INVALID_ARGUMENT', message: 'Invalid value at message.android.ttl' },
      { kind: 'failed', reason: 'INVALID_ARGUMENT' },
    ],
    [
      { status: 403, errorCode: 'SENDER_ID_MISMATCH' },
      { kind: 'failed', reason: 'SENDER_ID_MISMATCH' },
    ],
    [
      { status: 429, errorCode: 'QUOTA_EXCEEDED', retryAfter: 10 },
      { kind: 'retry', reason: 'QUOTA_EXCEEDED', retryAfterMs: 10000 },
    ],
    [
      { status: 500, errorCode: 'INTERNAL' },
      { kind: 'retry', reason: 'INTERNAL' },
    ],
    [
      { status: 503, errorCode: 'UNAVAILABLE', retryAfter: 5 },
      { kind: 'retry', reason: 'UNAVAILABLE', retryAfterMs: 5000 },
    ],
  ] as const)('maps %j to %j', async (step, outcome) => {
    const token = `fcm-${randomUUID()}`;
    fakeFcm.script(token, [step]);
    await expect(provider.send(credentials, content(), androidTarget(token))).resolves.toEqual(outcome);
    expect(fakeFcm.requests.map((r) => r.status)).toEqual([step.status]);
  });

  it('fails a message FCM finds too big with PayloadTooLarge', async () => {
    const big = content({ data: { blob: 'x'.repeat(5000) } });
    await expect(provider.send(credentials, big, androidTarget())).resolves.toEqual({ kind: 'failed', reason: 'PayloadTooLarge' });
  });

  it('on 401 drops the access token, fetches a new one and resends once', async () => {
    await expect(provider.send(credentials, content(), androidTarget())).resolves.toMatchObject({ kind: 'accepted' });
    const tokensBefore = fakeFcm.tokenRequests.length;
    const token = `fcm-${randomUUID()}`;
    fakeFcm.script(token, [{ status: 401, errorCode: 'THIRD_PARTY_AUTH_ERROR' }]);

    await expect(provider.send(credentials, content(), androidTarget(token))).resolves.toMatchObject({ kind: 'accepted' });
    expect(fakeFcm.requests.filter((r) => r.token === token).map((r) => r.status)).toEqual([401, 200]);
    expect(fakeFcm.tokenRequests.length).toBe(tokensBefore + 1);
  });

  it('fails with UNAUTHENTICATED when the fresh token is refused too', async () => {
    const token = `fcm-${randomUUID()}`;
    fakeFcm.script(token, [
      { status: 401, errorCode: 'THIRD_PARTY_AUTH_ERROR' },
      { status: 401, errorCode: 'THIRD_PARTY_AUTH_ERROR' },
    ]);
    await expect(provider.send(credentials, content(), androidTarget(token))).resolves.toEqual({
      kind: 'failed',
      reason: 'UNAUTHENTICATED',
    });
    expect(fakeFcm.requests).toHaveLength(2);
  });

  it('fails when Google refuses the service account key', async () => {
    const forged = fakeFcm.createServiceAccount(PROJECT_ID);
    const other = fakeFcm.createServiceAccount(PROJECT_ID);
    // Right identity, wrong key: Google answers invalid_grant.
    const bad = fcmCredentials({ ...forged, private_key: other.private_key });
    await expect(provider.send(bad, content(), androidTarget())).resolves.toEqual({ kind: 'failed', reason: 'OAuth:invalid_grant' });
    expect(fakeFcm.requests).toHaveLength(0);
  });

  it('retries a send that times out', async () => {
    await expect(provider.send(credentials, content(), androidTarget())).resolves.toMatchObject({ kind: 'accepted' });
    provider.timeoutMs = 150;
    fakeFcm.delayMs = 600;
    await expect(provider.send(credentials, content(), androidTarget())).resolves.toEqual({
      kind: 'retry',
      reason: `Timeout ${new URL(fakeFcm.baseUrl).hostname}`,
    });
  });

  it('fails without a registration token or credentials, without calling FCM', async () => {
    await expect(provider.send(credentials, content(), { ...androidTarget(), pushToken: null })).resolves.toEqual({
      kind: 'failed',
      reason: 'MissingRegistrationToken',
    });
    await expect(provider.send({ ...credentials, fcm: null }, content(), androidTarget())).resolves.toEqual({
      kind: 'failed',
      reason: 'FcmNotConfigured',
    });
    expect(fakeFcm.requests).toHaveLength(0);
  });
});

describe.each([
  ['HTTP/2', fakeWebPush, '2.0'],
  ['HTTP/1.1 only', fakeWebPushHttp1, '1.1'],
])('WebPushProvider, to a push service speaking %s', (_name, service, httpVersion) => {
  let provider: WebPushProvider;
  const vapidKeys = webpush.generateVAPIDKeys();
  const credentials: ProviderCredentials = {
    appId: randomUUID(),
    apns: null,
    fcm: null,
    vapid: { subject: 'mailto:ops@example.com', publicKey: vapidKeys.publicKey, privateKey: vapidKeys.privateKey },
    hms: null,
  };
  const webTarget = (subscription = service.createSubscription()): DeliveryTarget => ({
    installationId: randomUUID(),
    pushToken: null,
    webPushSubscription: subscription,
  });

  beforeEach(() => {
    service.reset();
    service.delayMs = 0;
    service.expectVapidPublicKey(vapidKeys.publicKey);
    provider = new WebPushProvider(WebPushHosts.fromSetting('localhost'));
  });

  afterEach(() => provider.onModuleDestroy());

  it('is configured only with VAPID keys', () => {
    expect(provider.platform).toBe('web');
    expect(provider.configured(credentials)).toBe(true);
    expect(provider.configured({ ...credentials, vapid: null })).toBe(false);
  });

  it(`sends over ${httpVersion === '2.0' ? 'HTTP/2, hundreds of messages on at most 4 connections' : 'HTTP/1.1, the protocol the service chose'}`, async () => {
    const outcomes = await Promise.all(Array.from({ length: 300 }, () => provider.send(credentials, content(), webTarget())));

    expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    expect(new Set(service.requests.map((r) => r.httpVersion))).toEqual(new Set([httpVersion]));
    expect(service.deliveredCount()).toBe(300);
    if (httpVersion === '2.0') {
      expect(provider.openSessions).toBeGreaterThan(0);
      expect(provider.openSessions).toBeLessThanOrEqual(4);
    } else {
      expect(provider.openSessions).toBe(0);
    }
  });

  it('sends the docs/api.md#what-a-device-receives encrypted JSON with TTL, Urgency and Topic', async () => {
    const message = content({
      image_url: 'https://cdn.example.com/box.png',
      action_url: 'https://shop.example.com/orders/42',
      data: { order_id: 42 },
      options: { ttl: 3600, priority: 'normal' },
    });
    const subscription = service.createSubscription();

    const outcome = await provider.send(credentials, message, webTarget(subscription));

    expect(service.requests).toHaveLength(1);
    const [request] = service.requests;
    // docs/api.md#provider-message-ids: the push message resource's Location.
    expect(outcome).toEqual({ kind: 'accepted', providerMessageId: request.location });
    expect(request.endpoint).toBe(subscription.endpoint);
    expect(request.payload).toEqual({
      notification_id: message.id,
      title: 'Your order shipped',
      body: 'It arrives Thursday',
      image_url: 'https://cdn.example.com/box.png',
      action_url: 'https://shop.example.com/orders/42',
      data: { order_id: 42 },
    });
    expect(request.headers).toMatchObject({
      ttl: '3600',
      urgency: 'normal',
      topic: Buffer.from(message.id.replace(/-/g, ''), 'hex').toString('base64url'),
      'content-encoding': 'aes128gcm',
    });
    expect(request.vapidSub).toBe('mailto:ops@example.com');
    expect(request.vapidPublicKey).toBe(vapidKeys.publicKey);
  });

  it('defaults to a four-week TTL and high urgency; a collapse id becomes a hashed Topic', async () => {
    const message = content({ options: { collapse_id: 'order-42' } });
    await expect(provider.send(credentials, message, webTarget())).resolves.toMatchObject({ kind: 'accepted' });
    const [request] = service.requests;
    expect(request.payload).toEqual({ notification_id: message.id, title: 'Your order shipped', body: 'It arrives Thursday' });
    expect(request.headers).toMatchObject({
      ttl: '2419200',
      urgency: 'high',
      topic: createHash('sha256').update('order-42').digest().subarray(0, 16).toString('base64url'),
    });
  });

  it('marks unknown (404) and unsubscribed (410) subscriptions invalid', async () => {
    const unknown = { ...service.createSubscription(), endpoint: `${service.baseUrl}/push/unknown-subscription` };
    await expect(provider.send(credentials, content(), webTarget(unknown))).resolves.toEqual({ kind: 'invalid', reason: 'NotFound' });

    const gone = service.createSubscription();
    service.unsubscribe(gone.endpoint);
    await expect(provider.send(credentials, content(), webTarget(gone))).resolves.toEqual({ kind: 'invalid', reason: 'Gone' });
  });

  it.each([
    [
      { status: 429, retryAfter: 60 },
      { kind: 'retry', reason: 'HTTP 429', retryAfterMs: 60000 },
    ],
    [{ status: 500 }, { kind: 'retry', reason: 'HTTP 500' }],
    [
      { status: 503, retryAfter: 2 },
      { kind: 'retry', reason: 'HTTP 503', retryAfterMs: 2000 },
    ],
    [{ status: 400 }, { kind: 'failed', reason: 'HTTP 400' }],
    [{ status: 410 }, { kind: 'invalid', reason: 'Gone' }],
  ])('maps %j to %j', async (step, outcome) => {
    const subscription = service.createSubscription();
    service.script(subscription.endpoint, [step]);
    await expect(provider.send(credentials, content(), webTarget(subscription))).resolves.toEqual(outcome);
  });

  it('fails a payload the push service refuses as too large (413) with PayloadTooLarge', async () => {
    const big = content({ data: { blob: 'x'.repeat(4100) } });
    await expect(provider.send(credentials, big, webTarget())).resolves.toEqual({ kind: 'failed', reason: 'PayloadTooLarge' });
  });

  it('fails (does not retry) when the push service rejects our VAPID key', async () => {
    const bound = service.createSubscription({ applicationServerKey: webpush.generateVAPIDKeys().publicKey });
    await expect(provider.send(credentials, content(), webTarget(bound))).resolves.toEqual({ kind: 'failed', reason: 'HTTP 403' });
  });

  it('retries network failures: refused connections and timeouts', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createTcpServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const refused = { ...service.createSubscription(), endpoint: `https://localhost:${closedPort}/push/abc` };
    await expect(provider.send(credentials, content(), webTarget(refused))).resolves.toEqual({ kind: 'retry', reason: 'ECONNREFUSED localhost' });

    provider.timeoutMs = 150;
    service.delayMs = 600;
    await expect(provider.send(credentials, content(), webTarget())).resolves.toMatchObject({ kind: 'retry' });
  });

  it('never connects to an endpoint off the allow-list (an IP literal stored before registration refused it)', async () => {
    const subscription = service.createSubscription();
    const loopback = { ...subscription, endpoint: subscription.endpoint.replace('https://localhost:', 'https://127.0.0.1:') };
    await expect(provider.send(credentials, content(), webTarget(loopback))).resolves.toEqual({ kind: 'invalid', reason: 'EndpointNotAllowed' });
    const withCredentials = { ...subscription, endpoint: subscription.endpoint.replace('https://', 'https://user:pass@') };
    await expect(provider.send(credentials, content(), webTarget(withCredentials))).resolves.toEqual({ kind: 'invalid', reason: 'EndpointNotAllowed' });
    expect(service.requests).toHaveLength(0);
  });

  it('re-checks DNS at connect time: a push service host that resolves to a private address fails, unconnected', async () => {
    // The default list (not operator-listed, so checked), with a resolver that turned hostile.
    const port = new URL(service.baseUrl).port;
    const rebound = WebPushHosts.fromSetting(undefined, (_host, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]));
    const guarded = new WebPushProvider(rebound);
    try {
      const subscription = service.createSubscription();
      const endpoint = subscription.endpoint.replace(`https://localhost:${port}`, `https://web.push.apple.com:${port}`);
      await expect(guarded.send(credentials, content(), webTarget({ ...subscription, endpoint }))).resolves.toEqual({
        kind: 'failed',
        reason: 'PrivateAddress',
      });
      expect(service.requests).toHaveLength(0);
    } finally {
      guarded.onModuleDestroy();
    }
  });

  it('marks a subscription with unusable keys invalid without sending', async () => {
    const broken = { ...service.createSubscription(), keys: { p256dh: 'AAAA', auth: 'BBBB' } };
    await expect(provider.send(credentials, content(), webTarget(broken))).resolves.toEqual({
      kind: 'invalid',
      reason: 'InvalidSubscription',
    });
    await expect(provider.send(credentials, content(), { ...webTarget(), webPushSubscription: null })).resolves.toEqual({
      kind: 'failed',
      reason: 'MissingSubscription',
    });
    expect(service.requests).toHaveLength(0);
  });
});
