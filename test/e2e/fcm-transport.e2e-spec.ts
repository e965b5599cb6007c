// FCM's transport, negotiated per origin (docs/api.md#delivery, docs/operations.md "TLS and
// connection poolers"): HTTP/2 where the server picks h2 by ALPN, keep-alive HTTP/1.1 where it does
// not, and HTTP/1.1 on a plain http:// URL. The OAuth token endpoint (GOOGLE_TOKEN_URL, here the same fake)
// is asked over HTTP/1.1, which every mode serves. Against the loopback FCM fake in each
// of its modes, first the provider alone, then the whole send path with its statistics.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EnvironmentVariables } from '../../src/config/env';
import type { ProviderCredentials } from '../../src/credentials/provider-credentials';
import { FcmProvider } from '../../src/delivery/providers/fcm.provider';
import type { PushContent } from '../../src/delivery/providers/payloads';
import type { DeliveryTarget } from '../../src/delivery/providers/push-provider';
import { FakeFcm, type ServiceAccount } from '../fakes';
import { fcmToken } from '../support/factories';
import { freePort, runCli, ServiceProcess, serviceEnv, TEST_APP_KEY, waitUntil } from '../support/processes';
import { useBuiltServices } from '../support/use-built-services';

jest.setTimeout(60_000);

const MODES = [
  ['HTTPS negotiating HTTP/2', () => new FakeFcm(), '2.0'],
  ['HTTPS with HTTP/1.1 only (ALPN without h2)', () => new FakeFcm({ http2: false }), '1.1'],
  ['plain http:// HTTP/1.1', () => new FakeFcm({ tls: false }), '1.1'],
] as const;

function content(): PushContent {
  return { id: randomUUID(), title: 'Hello', body: 'World', image_url: null, action_url: null, data: null, options: null };
}

const androidTarget = (): DeliveryTarget => ({ installationId: randomUUID(), pushToken: `fcm-${randomUUID()}`, webPushSubscription: null });

function fcmCredentials(account: ServiceAccount): ProviderCredentials {
  return {
    appId: randomUUID(),
    apns: null,
    fcm: { projectId: account.project_id, clientEmail: account.client_email, privateKeyId: account.private_key_id, privateKey: account.private_key },
    vapid: null,
    hms: null,
  };
}

describe.each(MODES)('FcmProvider against an FCM speaking %s', (_name, makeFake, httpVersion) => {
  const fake = makeFake();
  let provider: FcmProvider;
  let credentials: ProviderCredentials;

  beforeAll(async () => {
    await fake.start();
    credentials = fcmCredentials(fake.createServiceAccount('transport-e2e'));
  });
  beforeEach(() => {
    fake.reset();
    const config = { FCM_URL: fake.baseUrl, GOOGLE_TOKEN_URL: fake.tokenUrl } as EnvironmentVariables;
    provider = new FcmProvider(config);
  });
  afterEach(() => provider.onModuleDestroy());
  afterAll(() => fake.stop());

  it(`delivers hundreds of concurrent sends over HTTP/${httpVersion}, with one access token from the same fake`, async () => {
    const outcomes = await Promise.all(Array.from({ length: 300 }, () => provider.send(credentials, content(), androidTarget())));

    expect(outcomes.filter((outcome) => outcome.kind !== 'accepted')).toEqual([]);
    expect(fake.deliveredCount()).toBe(300);
    expect(new Set(fake.requests.map((request) => request.httpVersion))).toEqual(new Set([httpVersion]));
    expect(fake.tokenRequests.map((request) => request.status)).toEqual([200]);
    if (httpVersion === '2.0') {
      expect(provider.openSessions).toBeGreaterThan(0);
      expect(provider.openSessions).toBeLessThanOrEqual(4);
    } else {
      expect(provider.openSessions).toBe(0);
    }
  });

  it('asks the origin once: later sends open no connection (no probe, no new socket)', async () => {
    // Warm up: the ALPN probe (https), the token request, and the pooled or keep-alive connections.
    for (let i = 0; i < 8; i++) await expect(provider.send(credentials, content(), androidTarget())).resolves.toMatchObject({ kind: 'accepted' });
    const connections = fake.connections;
    expect(connections).toBeGreaterThan(0);

    for (let i = 0; i < 20; i++) await expect(provider.send(credentials, content(), androidTarget())).resolves.toMatchObject({ kind: 'accepted' });
    expect(fake.connections).toBe(connections);
    expect(fake.deliveredCount()).toBe(28);
  });
});

/**
 * The whole path, as an operator runs it: the built service (APP_MODE=all) pointed at the fake in
 * each mode in turn, an app configured through the CLI, a send through the API.
 */
describe('a send to Android devices through the built service', () => {
  const stores = useBuiltServices();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fcm-transport-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(MODES)('completes with every installation accepted, FCM speaking %s', async (_name, makeFake, httpVersion) => {
    const fake = makeFake();
    await fake.start();
    try {
      const cli = { env: { DATABASE_URL: stores.database.url, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test' } };
      const app = JSON.parse((await runCli(['apps:create', '--name', 'FCM transport'], cli)).stdout);
      const keyFile = join(dir, `${app.id}.json`);
      writeFileSync(keyFile, JSON.stringify(fake.createServiceAccount('transport-send')));
      expect((await runCli(['apps:credentials', '--app', app.id, '--fcm-service-account-file', keyFile], cli)).code).toBe(0);
      const token = JSON.parse((await runCli(['tokens:create', '--app', app.id, '--abilities', '*'], cli)).stdout).token;

      const port = await freePort();
      const service = ServiceProcess.start(
        serviceEnv(
          { databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix },
          { PORT: String(port), FCM_URL: fake.baseUrl, GOOGLE_TOKEN_URL: fake.tokenUrl },
        ),
      );
      await service.waitForHttp(port);
      const api = (path: string, method = 'GET', body?: unknown) =>
        fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      for (let i = 0; i < 5; i++) {
        const registered = await api(`/api/v1/installations/android-${randomUUID()}`, 'PUT', { platform: 'android', push_token: fcmToken(), user_id: 'ada' });
        expect(registered.status).toBe(201);
      }
      const sent = await api('/api/v1/notifications', 'POST', { notification: { title: 'Hello', body: 'World' }, recipients: { user_ids: ['ada'] } });
      expect(sent.status).toBe(202);
      const { id } = ((await sent.json()) as { data: { id: string } }).data;

      let done: { completed_at: string | null; statistics: Record<string, number> } | undefined;
      await waitUntil(async () => {
        done = ((await (await api(`/api/v1/notifications/${id}`)).json()) as { data: typeof done }).data;
        return Boolean(done?.completed_at);
      }, `notification ${id} to complete:\n${service.output()}`);
      expect(done!.statistics).toMatchObject({ users: 1, installations: 5, accepted: 5, failed: 0 });
      expect(fake.deliveredCount()).toBe(5);
      expect(new Set(fake.requests.map((request) => request.httpVersion))).toEqual(new Set([httpVersion]));
      await service.stop();
    } finally {
      await fake.stop();
    }
  });
});
