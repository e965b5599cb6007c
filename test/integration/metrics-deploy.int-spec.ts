// The metrics deploy/grafana and deploy/prometheus/alerts.yml read beyond the counters of
// metrics.int-spec.ts (issue 50, item 5): the oldest waiting job per queue (Live Activity updates
// included), whether PostgreSQL and Redis answer, and each provider answer's HTTP status class.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import webpush from 'web-push';
import { LIVE_ACTIVITY_QUEUE } from '../../src/common/queues';
import { WebPushHosts } from '../../src/common/web-push-hosts';
import type { EnvironmentVariables } from '../../src/config/env';
import type { ProviderCredentials } from '../../src/credentials/provider-credentials';
import { ApnsProvider } from '../../src/delivery/providers/apns.provider';
import { FcmProvider } from '../../src/delivery/providers/fcm.provider';
import type { PushContent } from '../../src/delivery/providers/payloads';
import type { DeliveryTarget } from '../../src/delivery/providers/push-provider';
import { WebPushProvider } from '../../src/delivery/providers/web-push.provider';
import { MetricsService } from '../../src/metrics/metrics.service';
import { FakeApns, FakeFcm, FakeWebPush, generateApnsKey, randomApnsToken } from '../fakes';
import { useTestApp } from '../support/create-test-app';
import { freePort } from '../support/processes';
import { sample, scrape } from '../support/prometheus';
import { TEST_REDIS_URL } from '../support/services';

describe('queue age and dependencies on /metrics', () => {
  let port: number;
  const ctx = useTestApp(async () => {
    port = await freePort();
    return { env: { METRICS_PORT: String(port) } };
  });

  it('reports the oldest waiting Live Activity update by when it was queued, and PostgreSQL and Redis up', async () => {
    const before = await scrape(port);
    expect(sample(before.text, 'pns_queue_oldest_job_age_seconds', { queue: LIVE_ACTIVITY_QUEUE })).toBe(0);

    // No worker runs in this API-only app: the job stays waiting. Its timestamp says it was queued 90 s ago.
    const queue = new Queue(LIVE_ACTIVITY_QUEUE, { connection: { url: TEST_REDIS_URL }, prefix: ctx.queuePrefix });
    try {
      await queue.add('live-activity', { updateId: randomUUID(), attempt: 1 }, { timestamp: Date.now() - 90_000 });
    } finally {
      await queue.close();
    }

    const { text } = await scrape(port);
    const age = sample(text, 'pns_queue_oldest_job_age_seconds', { queue: LIVE_ACTIVITY_QUEUE })!;
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(3600);
    expect(sample(text, 'pns_queue_jobs', { queue: LIVE_ACTIVITY_QUEUE, state: 'waiting' })).toBe(1);
    for (const queueName of ['fanout', 'deliver', 'deliver-small', 'webhook']) {
      expect({ queueName, age: sample(text, 'pns_queue_oldest_job_age_seconds', { queue: queueName }) }).toEqual({ queueName, age: 0 });
    }
    expect(sample(text, 'pns_dependency_up', { dependency: 'database' })).toBe(1);
    expect(sample(text, 'pns_dependency_up', { dependency: 'redis' })).toBe(1);
  });
});

describe('provider answers by HTTP status class', () => {
  const content: PushContent = { id: randomUUID(), title: 'T', body: 'B', image_url: null, action_url: null, data: null, options: null };
  const fakeApns = new FakeApns();
  const fakeFcm = new FakeFcm();
  const fakeWebPush = new FakeWebPush({ http2: false });
  const key = generateApnsKey();
  let metrics: MetricsService;
  let config: EnvironmentVariables;

  const counted = async (): Promise<Record<string, number>> => {
    const { values } = await metrics.providerResponses.get();
    return Object.fromEntries(values.map(({ labels, value }) => [`${labels.provider} ${labels.status_class}`, value]));
  };

  beforeAll(async () => {
    const [apnsUrl] = await Promise.all([fakeApns.start(), fakeFcm.start(), fakeWebPush.start()]);
    fakeApns.addKey(key);
    fakeApns.allowTopic('com.example.metrics');
    config = { APNS_URL: apnsUrl, FCM_URL: fakeFcm.baseUrl, GOOGLE_TOKEN_URL: fakeFcm.tokenUrl } as EnvironmentVariables;
  });

  afterAll(() => Promise.all([fakeApns.stop(), fakeFcm.stop(), fakeWebPush.stop()]));

  beforeEach(() => {
    metrics = new MetricsService();
  });

  afterEach(() => metrics.registry.clear());

  it('APNs: 2xx, 5xx, and none for a port nothing listens on', async () => {
    const credentials: ProviderCredentials = {
      appId: randomUUID(),
      apns: { keyId: key.keyId, teamId: key.teamId, topic: 'com.example.metrics', production: false, privateKey: key.privateKeyPem },
      fcm: null,
      vapid: null,
      hms: null,
    };
    const target = (pushToken: string): DeliveryTarget => ({ installationId: randomUUID(), pushToken, webPushSubscription: null });
    const failing = randomApnsToken();
    fakeApns.script(failing, [{ status: 503, reason: 'ServiceUnavailable' }]);
    const provider = new ApnsProvider(config, metrics);
    const closed = new ApnsProvider({ APNS_URL: `https://127.0.0.1:${await freePort()}` } as EnvironmentVariables, metrics);
    try {
      expect((await provider.send(credentials, content, target(randomApnsToken()))).kind).toBe('accepted');
      expect((await provider.send(credentials, content, target(failing))).kind).toBe('retry');
      expect((await closed.send(credentials, content, target(randomApnsToken()))).kind).toBe('retry');
    } finally {
      provider.close();
      closed.close();
    }
    expect(await counted()).toEqual({ 'apns 2xx': 1, 'apns 5xx': 1, 'apns none': 1 });
  });

  it('FCM: 2xx', async () => {
    const account = fakeFcm.createServiceAccount('metrics-project');
    const credentials: ProviderCredentials = {
      appId: randomUUID(),
      apns: null,
      fcm: { projectId: account.project_id, clientEmail: account.client_email, privateKeyId: account.private_key_id, privateKey: account.private_key },
      vapid: null,
      hms: null,
    };
    const provider = new FcmProvider(config, metrics);
    try {
      const outcome = await provider.send(credentials, content, { installationId: randomUUID(), pushToken: `fcm-${randomUUID()}`, webPushSubscription: null });
      expect(outcome.kind).toBe('accepted');
    } finally {
      provider.onModuleDestroy();
    }
    expect(await counted()).toEqual({ 'fcm 2xx': 1 });
  });

  it('Web Push over HTTP/1.1: 2xx, and 4xx for a subscription that is gone', async () => {
    const vapidKeys = webpush.generateVAPIDKeys();
    const credentials: ProviderCredentials = {
      appId: randomUUID(),
      apns: null,
      fcm: null,
      vapid: { subject: 'mailto:ops@example.com', publicKey: vapidKeys.publicKey, privateKey: vapidKeys.privateKey },
      hms: null,
    };
    fakeWebPush.expectVapidPublicKey(vapidKeys.publicKey);
    const provider = new WebPushProvider(WebPushHosts.fromSetting('localhost'), metrics);
    const live = fakeWebPush.createSubscription();
    const gone = fakeWebPush.createSubscription();
    fakeWebPush.unsubscribe(gone.endpoint);
    try {
      expect((await provider.send(credentials, content, { installationId: randomUUID(), pushToken: null, webPushSubscription: live })).kind).toBe('accepted');
      expect((await provider.send(credentials, content, { installationId: randomUUID(), pushToken: null, webPushSubscription: gone })).kind).toBe('invalid');
    } finally {
      provider.onModuleDestroy();
    }
    expect(await counted()).toEqual({ 'web_push 2xx': 1, 'web_push 4xx': 1 });
  });
});
