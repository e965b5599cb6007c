import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeApns, FakeFcm, FakeHms, generateApnsKey } from '../fakes';
import { assertBuilt, runCli, RunResult, TEST_APP_KEY } from '../support/processes';
import { createTestDatabase, dropTestDatabase } from '../support/test-database';

/**
 * `credentials:check` (docs/api.md#credentials-check), run as built against the loopback fakes,
 * which answer a made-up token as Apple and Google do: right credentials pass, each kind of wrong
 * one fails with the provider's reason and exit code 1, and an unreachable endpoint names its host.
 */
jest.setTimeout(120_000);

const TOPIC = 'com.example.checked';

describe('credentials:check (docs/api.md#credentials-check)', () => {
  let database: { name: string; url: string };
  let dir: string;
  const apns = new FakeApns();
  const fcm = new FakeFcm();
  const hms = new FakeHms();
  const key = generateApnsKey();
  const unknownKey = generateApnsKey();
  const env = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: database.url,
    APP_KEY: TEST_APP_KEY,
    NODE_ENV: 'test',
    APNS_URL: apns.baseUrl,
    FCM_URL: fcm.baseUrl,
    GOOGLE_TOKEN_URL: fcm.tokenUrl,
    HMS_URL: hms.baseUrl,
    HMS_TOKEN_URL: hms.tokenUrl,
    ...extra,
  });
  const cli = (args: string[], extra?: Record<string, string>) => runCli(args, { env: env(extra) });
  const json = (result: RunResult): any => {
    if (result.code !== 0) throw new Error(`command failed (${result.code}):\n${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  /** An app with these credentials; APNs from `apnsKey` and `topic`, FCM from a key file's text. */
  const appWith = async (
    name: string,
    credentials: {
      apnsKey?: typeof key;
      topic?: string;
      serviceAccount?: object;
      vapid?: boolean;
      hms?: { app_id: string; client_id: string; client_secret: string };
    },
  ) => {
    const appId = json(await cli(['apps:create', '--name', name])).id;
    const args = ['apps:credentials', '--app', appId];
    if (credentials.apnsKey) {
      args.push('--apns-key-file', file(`${name}.p8`, credentials.apnsKey.privateKeyPem), '--apns-key-id', credentials.apnsKey.keyId);
      args.push('--apns-team-id', credentials.apnsKey.teamId, '--apns-topic', credentials.topic ?? TOPIC, '--apns-production', 'false');
    }
    if (credentials.serviceAccount) args.push('--fcm-service-account-file', file(`${name}.json`, JSON.stringify(credentials.serviceAccount)));
    if (credentials.vapid) args.push('--vapid-subject', 'mailto:ops@example.com');
    if (credentials.hms) {
      args.push('--hms-app-id', credentials.hms.app_id, '--hms-client-id', credentials.hms.client_id, '--hms-client-secret', credentials.hms.client_secret);
    }
    json(await cli(args));
    return appId;
  };

  beforeAll(async () => {
    assertBuilt();
    await Promise.all([apns.start(), fcm.start(), hms.start()]);
    apns.addKey({ keyId: key.keyId, teamId: key.teamId, publicKey: key.publicKey });
    apns.allowTopic(TOPIC);
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'pns-check-'));
  });
  afterAll(async () => {
    await Promise.all([apns.stop(), fcm.stop(), hms.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (database) await dropTestDatabase(database.name);
  });
  beforeEach(() => {
    apns.reset();
    fcm.reset();
    hms.reset();
  });

  it('proves right credentials of all three providers with a token no device has, delivering nothing', async () => {
    const appId = await appWith('good', { apnsKey: key, serviceAccount: fcm.createServiceAccount('checked-project'), vapid: true });
    const result = await cli(['credentials:check', '--app', appId]);

    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { provider: 'apns', ok: true, detail: expect.stringContaining('BadDeviceToken for a token no device has') },
      { provider: 'fcm', ok: true, detail: expect.stringContaining('HTTP 400 INVALID_ARGUMENT for a token no device has') },
      { provider: 'web-push', ok: true, detail: expect.stringContaining('subject mailto:ops@example.com') },
    ]);
    // Apple and Google answered about the token, so they accepted the rest; no device got anything.
    expect(apns.requests.map((r) => [r.status, r.reason])).toEqual([[400, 'BadDeviceToken']]);
    expect(fcm.requests.map((r) => [r.validateOnly, r.status])).toEqual([[true, 400]]);
    expect(apns.deliveredCount() + fcm.deliveredCount()).toBe(0);
    expect(fcm.tokenRequests.map((r) => r.status)).toEqual([200]);

    // --provider checks one.
    const one = await cli(['credentials:check', '--app', appId, '--provider', 'web-push']);
    expect(JSON.parse(one.stdout).map((r: { provider: string }) => r.provider)).toEqual(['web-push']);
  });

  it('proves Huawei credentials by the token exchange and a validate_only send, and fails a wrong secret or another app', async () => {
    const client = hms.createClient();
    const good = await appWith('hms-good', { hms: client });
    const result = await cli(['credentials:check', '--app', good, '--provider', 'hms']);
    expect([result.code, JSON.parse(result.stdout)]).toEqual([
      0,
      [{ provider: 'hms', ok: true, detail: expect.stringContaining('HTTP 400 80300007 for a token no device has') }],
    ]);
    expect(hms.requests.map((r) => [r.validateOnly, r.code])).toEqual([[true, '80300007']]);
    expect(hms.deliveredCount()).toBe(0);

    const badSecret = await appWith('hms-secret', { hms: { ...client, client_secret: 'wrong-secret' } });
    const refused = await cli(['credentials:check', '--app', badSecret]);
    expect([refused.code, JSON.parse(refused.stdout)]).toEqual([1, [{ provider: 'hms', ok: false, detail: expect.stringContaining('failed (OAuth:20152)') }]]);

    const otherApp = await appWith('hms-other', { hms: { ...client, app_id: '999999999' } });
    const mismatch = await cli(['credentials:check', '--app', otherApp]);
    expect([mismatch.code, JSON.parse(mismatch.stdout)]).toEqual([
      1,
      [{ provider: 'hms', ok: false, detail: expect.stringContaining('refused the credentials (HTTP 401 80200001)') }],
    ]);
  });

  it('fails a key Apple does not know (InvalidProviderToken) and a topic it refuses, with exit code 1', async () => {
    const badKey = await appWith('bad-key', { apnsKey: unknownKey });
    const badKeyResult = await cli(['credentials:check', '--app', badKey]);
    expect(badKeyResult.code).toBe(1);
    expect(JSON.parse(badKeyResult.stdout)).toEqual([
      { provider: 'apns', ok: false, detail: expect.stringMatching(/InvalidProviderToken \(the key, its key id or the team id is wrong\)$/) },
    ]);

    const badTopic = await appWith('bad-topic', { apnsKey: key, topic: 'com.example.someone-else' });
    const badTopicResult = await cli(['credentials:check', '--app', badTopic]);
    expect(badTopicResult.code).toBe(1);
    expect(JSON.parse(badTopicResult.stdout)[0]).toEqual({ provider: 'apns', ok: false, detail: expect.stringContaining('TopicDisallowed') });
  });

  it('fails a service account Google refuses at the token exchange or for another project', async () => {
    const account = fcm.createServiceAccount('checked-project');
    const forged = await appWith('forged', { serviceAccount: { ...account, private_key: fcm.createServiceAccount('checked-project').private_key } });
    const forgedResult = await cli(['credentials:check', '--app', forged]);
    expect(forgedResult.code).toBe(1);
    expect(JSON.parse(forgedResult.stdout)).toEqual([{ provider: 'fcm', ok: false, detail: expect.stringContaining('failed (OAuth:invalid_grant)') }]);

    // A valid key of one project used for another: the token is issued, the send is 403.
    const otherProject = await appWith('other-project', { serviceAccount: { ...account, project_id: 'not-my-project' } });
    const otherResult = await cli(['credentials:check', '--app', otherProject]);
    expect(otherResult.code).toBe(1);
    expect(JSON.parse(otherResult.stdout)).toEqual([{ provider: 'fcm', ok: false, detail: expect.stringContaining('refused the credentials (HTTP 403') }]);
    expect(fcm.requests.map((r) => [r.validateOnly, r.status])).toEqual([[true, 403]]);
  });

  it('names the host it could not reach', async () => {
    const appId = await appWith('unreachable', { apnsKey: key, serviceAccount: fcm.createServiceAccount('checked-project') });
    const result = await cli(['credentials:check', '--app', appId], { APNS_URL: 'https://apns.invalid', GOOGLE_TOKEN_URL: 'https://oauth2.invalid/token' });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual([
      { provider: 'apns', ok: false, detail: expect.stringMatching(/: ENOTFOUND apns\.invalid$/) },
      { provider: 'fcm', ok: false, detail: expect.stringContaining('(TokenEndpoint:ENOTFOUND oauth2.invalid)') },
    ]);
  });

  it('says what is missing: an unknown app, an app without credentials, an unknown provider', async () => {
    const unknown = await cli(['credentials:check', '--app', '00000000-0000-4000-8000-000000000000']);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'App 00000000-0000-4000-8000-000000000000 not found']);
    const bare = json(await cli(['apps:create', '--name', 'bare'])).id;
    const none = await cli(['credentials:check', '--app', bare, '--provider', 'fcm']);
    expect([none.code, none.stderr.trim()]).toEqual([1, `App ${bare} has no fcm credentials: set them with apps:credentials`]);
    const wrong = await cli(['credentials:check', '--app', bare, '--provider', 'gcm']);
    expect([wrong.code, wrong.stderr.trim()]).toEqual([1, '--provider must be apns, fcm, web-push or hms']);
  });
});
