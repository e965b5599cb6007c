import { generateKeyPairSync, randomBytes } from 'node:crypto';
import webpush from 'web-push';
import { CredentialsService } from '../../src/credentials/credentials.service';
import { FakeApns, FakeFcm, FakeHms, FakeWebPush, generateApnsKey, type HmsClient } from '../fakes';
import type { TestContext } from './create-test-app';

export const APNS_TOPIC = 'com.example.pushapp';

export interface FakeProviders {
  apns: FakeApns;
  fcm: FakeFcm;
  web: FakeWebPush;
  hms: FakeHms;
  /** Environment that points the service at the fakes, with fast retries and sweeps. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts the four loopback providers; pass `env` to createTestApp (or a spawned worker). */
export async function startFakeProviders(): Promise<FakeProviders> {
  const apns = new FakeApns();
  const fcm = new FakeFcm();
  const web = new FakeWebPush();
  const hms = new FakeHms();
  await Promise.all([apns.start(), fcm.start(), web.start(), hms.start()]);
  apns.allowTopic(APNS_TOPIC);
  return {
    apns,
    fcm,
    web,
    hms,
    env: {
      APNS_URL: apns.baseUrl,
      FCM_URL: fcm.baseUrl,
      GOOGLE_TOKEN_URL: fcm.tokenUrl,
      HMS_URL: hms.baseUrl,
      HMS_TOKEN_URL: hms.tokenUrl,
      // The fake push service's endpoints are https://localhost:<port>.
      WEB_PUSH_ALLOWED_HOSTS: 'localhost',
      DELIVERY_RETRY_BASE_MS: '20',
      DELIVERY_RETRY_MAX_MS: '200',
      SWEEP_INTERVAL_MS: '300',
    },
    stop: async () => {
      await Promise.all([apns.stop(), fcm.stop(), web.stop(), hms.stop()]);
    },
  };
}

/** Gives an app credentials for all three providers, registered with the fakes. */
export async function configureProviders(ctx: TestContext, appId: string, fakes: FakeProviders): Promise<{ vapidPublicKey: string }> {
  const key = generateApnsKey();
  fakes.apns.addKey(key);
  const account = fakes.fcm.createServiceAccount(`project-${appId.slice(0, 8)}`);
  const vapid = webpush.generateVAPIDKeys();
  fakes.web.expectVapidPublicKey(vapid.publicKey);
  await ctx.get(CredentialsService).update(appId, {
    apns: { privateKey: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, topic: APNS_TOPIC, production: false },
    fcm: { serviceAccount: JSON.stringify(account) },
    vapid: { subject: 'mailto:ops@example.com', publicKey: vapid.publicKey, privateKey: vapid.privateKey },
  });
  return { vapidPublicKey: vapid.publicKey };
}

/** Gives an app Huawei credentials of a client the fake knows (docs/api.md#huawei). */
export async function configureHms(ctx: TestContext, appId: string, fakes: FakeProviders): Promise<HmsClient> {
  const client = fakes.hms.createClient();
  await ctx.get(CredentialsService).update(appId, { hms: { appId: client.app_id, clientId: client.client_id, clientSecret: client.client_secret } });
  return client;
}

/**
 * Gives an app valid credentials for the named providers without any fake behind them: for tests
 * of what the API decides from the credentials an app has (the payload size check, docs/api.md#send).
 */
export async function configureCredentials(
  ctx: TestContext,
  appId: string,
  providers: readonly ('apns' | 'fcm' | 'web_push')[] = ['apns', 'fcm', 'web_push'],
): Promise<void> {
  const key = generateApnsKey();
  const vapid = webpush.generateVAPIDKeys();
  await ctx.get(CredentialsService).update(appId, {
    apns: providers.includes('apns')
      ? { privateKey: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, topic: APNS_TOPIC, production: false }
      : undefined,
    fcm: providers.includes('fcm') ? { serviceAccount: JSON.stringify(serviceAccount(`project-${appId.slice(0, 8)}`)) } : undefined,
    vapid: providers.includes('web_push') ? { subject: 'mailto:ops@example.com', publicKey: vapid.publicKey, privateKey: vapid.privateKey } : undefined,
  });
}

/** A service-account key file of the shape Google issues, for no real project. */
function serviceAccount(projectId: string): Record<string, string> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    type: 'service_account',
    project_id: projectId,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    client_email: `push@${projectId}.iam.gserviceaccount.com`,
    token_uri: 'https://oauth2.googleapis.com/token',
  };
}

export interface SeededInstallation {
  userId: string;
  platform: 'ios' | 'android' | 'web';
  /** APNs/FCM token, or the Web Push endpoint */
  address: string;
}

/**
 * Inserts `count` installations (one per user `<prefix>-<n>`) straight into PostgreSQL: half iOS,
 * a quarter Android, a quarter Web, with web subscriptions the fake can decrypt; or all of
 * `only` when given. Registering thousands through the API would only slow the test down, the
 * fan-out reads the table anyway.
 */
export async function seedInstallations(
  ctx: { db: { query: (sql: string, params?: unknown[]) => Promise<unknown> } },
  appId: string,
  fakes: FakeProviders,
  count: number,
  prefix = 'user',
  only?: SeededInstallation['platform'],
): Promise<SeededInstallation[]> {
  const seeded: SeededInstallation[] = [];
  const subscriptions: (string | null)[] = [];
  for (let n = 0; n < count; n++) {
    const platform = only ?? (n % 4 < 2 ? 'ios' : n % 4 === 2 ? 'android' : 'web');
    const userId = `${prefix}-${n}`;
    if (platform === 'web') {
      const subscription = fakes.web.createSubscription();
      subscriptions.push(JSON.stringify({ endpoint: subscription.endpoint, keys: subscription.keys }));
      seeded.push({ userId, platform, address: subscription.endpoint });
    } else {
      const token = platform === 'ios' ? randomBytes(32).toString('hex') : `fcm-${randomBytes(24).toString('base64url')}`;
      subscriptions.push(null);
      seeded.push({ userId, platform, address: token });
    }
  }
  await ctx.db.query(
    `INSERT INTO installations (app_id, installation_id, platform, push_token, web_push_subscription, user_id, permission,
       registered_at, last_seen_at)
     SELECT $1, 'inst-' || u.user_id, u.platform, u.token, u.subscription::jsonb, u.user_id, 'granted', now(), now()
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS u(user_id, platform, token, subscription)`,
    [appId, seeded.map((s) => s.userId), seeded.map((s) => s.platform), seeded.map((s) => (s.platform === 'web' ? null : s.address)), subscriptions],
  );
  return seeded;
}

/** Accepted requests per device address, across the three fakes. */
export function acceptedPerAddress(fakes: FakeProviders): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (address: string) => counts.set(address, (counts.get(address) ?? 0) + 1);
  for (const r of fakes.apns.requests) if (r.status === 200) add(r.token);
  for (const r of fakes.fcm.requests) if (r.status === 200) add(r.token);
  for (const r of fakes.web.requests) if (r.status === 201) add(r.endpoint);
  for (const r of fakes.hms.requests) if (r.status === 200 && !r.validateOnly) for (const token of r.tokens) if (!r.illegal.includes(token)) add(token);
  return counts;
}
