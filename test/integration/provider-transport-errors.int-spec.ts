// What each provider records when it cannot reach its service at all: the underlying cause of the
// transport error (ENOTFOUND for a host that does not resolve, ECONNREFUSED for a closed port) and
// the host it was trying (docs/api.md#delivery), as
// the delivery row stores it and the completion log line reports it (docs/api.md#delivery). `.invalid`
// never resolves (RFC 6761), so no test here depends on the machine's DNS beyond that.
import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import webpush from 'web-push';
import type { EnvironmentVariables } from '../../src/config/env';
import type { ProviderCredentials } from '../../src/credentials/provider-credentials';
import { WebPushHosts } from '../../src/common/web-push-hosts';
import type { WebPushSubscription } from '../../src/common/platform';
import type { PushContent } from '../../src/delivery/providers/payloads';
import type { DeliveryTarget } from '../../src/delivery/providers/push-provider';
import { ApnsProvider } from '../../src/delivery/providers/apns.provider';
import { FcmProvider } from '../../src/delivery/providers/fcm.provider';
import { WebPushProvider } from '../../src/delivery/providers/web-push.provider';
import { FakeFcm, generateApnsKey, randomApnsToken } from '../fakes';
import { freePort } from '../support/processes';

const content: PushContent = { id: randomUUID(), title: 'T', body: 'B', image_url: null, action_url: null, data: null, options: null };
const target = (pushToken: string | null, webPushSubscription: WebPushSubscription | null = null): DeliveryTarget => ({
  installationId: randomUUID(),
  pushToken,
  webPushSubscription,
});

let closedPort: number;
beforeAll(async () => {
  closedPort = await freePort();
});

describe('APNs', () => {
  const key = generateApnsKey();
  const credentials: ProviderCredentials = {
    appId: randomUUID(),
    apns: { keyId: key.keyId, teamId: key.teamId, topic: 'com.example.pushapp', production: false, privateKey: key.privateKeyPem },
    fcm: null,
    vapid: null,
    hms: null,
  };
  const send = async (apnsUrl: string) => {
    const provider = new ApnsProvider({ APNS_URL: apnsUrl } as EnvironmentVariables);
    try {
      // Two at once: the first opens the connection, the second waits for it; both must say why.
      return await Promise.all([
        provider.send(credentials, content, target(randomApnsToken())),
        provider.send(credentials, content, target(randomApnsToken())),
      ]);
    } finally {
      provider.close();
    }
  };

  it('a host that does not resolve: retried with ENOTFOUND and the host (not ERR_HTTP2_STREAM_CANCEL)', async () => {
    expect(await send('https://apns.invalid')).toEqual([
      { kind: 'retry', reason: 'ENOTFOUND apns.invalid' },
      { kind: 'retry', reason: 'ENOTFOUND apns.invalid' },
    ]);
  });

  it('a port nothing listens on: retried with ECONNREFUSED', async () => {
    expect(await send(`https://127.0.0.1:${closedPort}`)).toEqual([
      { kind: 'retry', reason: 'ECONNREFUSED 127.0.0.1' },
      { kind: 'retry', reason: 'ECONNREFUSED 127.0.0.1' },
    ]);
  });
});

describe('FCM', () => {
  // The token endpoint of the fake answers, so the send itself is what fails (and, below, the reverse).
  const fake = new FakeFcm();
  let credentials: ProviderCredentials;
  beforeAll(async () => {
    await fake.start();
    const account = fake.createServiceAccount('push-transport');
    credentials = {
      appId: randomUUID(),
      apns: null,
      fcm: { projectId: account.project_id, clientEmail: account.client_email, privateKeyId: account.private_key_id, privateKey: account.private_key },
      vapid: null,
      hms: null,
    };
  });
  afterAll(() => fake.stop());

  const send = async (config: Partial<EnvironmentVariables>) => {
    const provider = new FcmProvider({ FCM_URL: fake.baseUrl, GOOGLE_TOKEN_URL: fake.tokenUrl, ...config } as EnvironmentVariables);
    try {
      return await provider.send(credentials, content, target('fcm-token'));
    } finally {
      provider.onModuleDestroy();
    }
  };

  it('FCM_URL a host that does not resolve: retried with ENOTFOUND', async () => {
    expect(await send({ FCM_URL: 'https://fcm.invalid' })).toEqual({ kind: 'retry', reason: 'ENOTFOUND fcm.invalid' });
  });

  it('FCM_URL a port nothing listens on: retried with ECONNREFUSED', async () => {
    expect(await send({ FCM_URL: `https://127.0.0.1:${closedPort}` })).toEqual({ kind: 'retry', reason: 'ECONNREFUSED 127.0.0.1' });
  });

  it('the token endpoint unreachable: retried with the cause, marked as the token endpoint', async () => {
    expect(await send({ GOOGLE_TOKEN_URL: 'https://oauth2.invalid/token' })).toEqual({ kind: 'retry', reason: 'TokenEndpoint:ENOTFOUND oauth2.invalid' });
    expect(await send({ GOOGLE_TOKEN_URL: `https://127.0.0.1:${closedPort}/token` })).toEqual({
      kind: 'retry',
      reason: 'TokenEndpoint:ECONNREFUSED 127.0.0.1',
    });
  });
});

describe('Web Push', () => {
  const vapid = webpush.generateVAPIDKeys();
  const credentials: ProviderCredentials = {
    appId: randomUUID(),
    apns: null,
    fcm: null,
    vapid: { subject: 'mailto:ops@example.com', publicKey: vapid.publicKey, privateKey: vapid.privateKey },
    hms: null,
  };
  // A browser's keys: a real P-256 point and 16 bytes, so encryption succeeds and the request is attempted.
  const keys = { p256dh: createECDH('prime256v1').generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') };
  const send = async (endpoint: string) => {
    const provider = new WebPushProvider(WebPushHosts.fromSetting('push.invalid,127.0.0.1'));
    try {
      return await provider.send(credentials, content, target(null, { endpoint, keys }));
    } finally {
      provider.onModuleDestroy();
    }
  };

  it('a push service host that does not resolve: retried with ENOTFOUND', async () => {
    expect(await send('https://push.invalid/send/abc')).toEqual({ kind: 'retry', reason: 'ENOTFOUND push.invalid' });
  });

  it('a push service port nothing listens on: retried with ECONNREFUSED', async () => {
    expect(await send(`https://127.0.0.1:${closedPort}/send/abc`)).toEqual({ kind: 'retry', reason: 'ECONNREFUSED 127.0.0.1' });
  });
});
