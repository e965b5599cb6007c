import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import webpush from 'web-push';
import { open } from '../../src/credentials/secret-box';
import { FakeFcm, generateApnsKey } from '../fakes';
import { assertBuilt, lines, runCli, RunResult, TEST_APP_KEY } from '../support/processes';
import { createTestDatabase, dropTestDatabase } from '../support/test-database';

/**
 * `apps:credentials` (docs/api.md#cli), run as built: stores each provider's credentials with
 * the secrets sealed under APP_KEY, prints a summary that never holds a secret, and generates a
 * VAPID pair when none is given.
 */
jest.setTimeout(120_000);

function json(result: RunResult): any {
  if (result.code !== 0) throw new Error(`command failed (${result.code}):\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe('apps:credentials (docs/api.md#cli)', () => {
  let database: { name: string; url: string };
  let sql: Client;
  let dir: string;
  let appId: string;
  const apnsKey = generateApnsKey();
  // The account's token_uri points at a fake, which is never called here.
  const fcm = new FakeFcm();
  let serviceAccount: ReturnType<FakeFcm['createServiceAccount']>;
  const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: database.url, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test' } });
  const row = async () => (await sql.query(`SELECT * FROM app_credentials WHERE app_id = $1`, [appId])).rows[0];
  const context = (column: string) => `app_credentials:${appId}:${column}`;

  beforeAll(async () => {
    assertBuilt();
    await fcm.start();
    serviceAccount = fcm.createServiceAccount('my-project');
    database = await createTestDatabase();
    sql = new Client({ connectionString: database.url });
    await sql.connect();
    dir = mkdtempSync(join(tmpdir(), 'pns-credentials-'));
    writeFileSync(join(dir, 'AuthKey.p8'), apnsKey.privateKeyPem);
    writeFileSync(join(dir, 'service-account.json'), JSON.stringify(serviceAccount));
    writeFileSync(join(dir, 'not-a-key.p8'), 'hello');
    appId = json(await cli('apps:create', '--name', 'Credentials app')).id;
  });
  afterAll(async () => {
    await sql?.end();
    await fcm.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (database) await dropTestDatabase(database.name);
  });

  it('with only --app prints an empty summary', async () => {
    expect(json(await cli('apps:credentials', '--app', appId))).toEqual({ app_id: appId, apns: null, fcm: null, web_push: null, hms: null });
  });

  it('stores all three providers, prints no secret, and seals every secret under APP_KEY', async () => {
    const result = await cli(
      'apps:credentials',
      '--app',
      appId,
      '--apns-key-file',
      join(dir, 'AuthKey.p8'),
      '--apns-key-id',
      apnsKey.keyId,
      '--apns-team-id',
      apnsKey.teamId,
      '--apns-topic',
      'com.example.app',
      '--apns-production',
      'false',
      '--fcm-service-account-file',
      join(dir, 'service-account.json'),
      '--vapid-subject',
      'mailto:ops@example.com',
    );
    const summary = json(result);
    expect(summary).toEqual({
      app_id: appId,
      apns: { key_id: apnsKey.keyId, team_id: apnsKey.teamId, topic: 'com.example.app', production: false },
      fcm: { project_id: 'my-project', client_email: serviceAccount.client_email },
      web_push: { subject: 'mailto:ops@example.com', public_key: expect.stringMatching(/^[A-Za-z0-9_-]{87}$/) },
      hms: null,
    });
    expect(result.stdout).not.toMatch(/PRIVATE KEY/);

    // The database alone reveals nothing: no secret appears in any column, in any encoding.
    const stored = await row();
    const dump = JSON.stringify(stored);
    const pemBody = (pem: string) => pem.split('\n').filter((l) => l && !l.startsWith('-----'))[1];
    expect(dump).not.toContain(pemBody(apnsKey.privateKeyPem));
    expect(dump).not.toContain(pemBody(serviceAccount.private_key));
    expect(dump).not.toContain('PRIVATE KEY');
    for (const column of ['apns_private_key_enc', 'fcm_service_account_enc', 'vapid_private_key_enc']) {
      expect(stored[column]).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    }

    // With APP_KEY they open to what was given, and only in their own row and column.
    expect(open(stored.apns_private_key_enc, context('apns_private_key_enc'), TEST_APP_KEY)).toBe(apnsKey.privateKeyPem);
    expect(JSON.parse(open(stored.fcm_service_account_enc, context('fcm_service_account_enc'), TEST_APP_KEY))).toEqual(serviceAccount);
    const vapidPrivate = open(stored.vapid_private_key_enc, context('vapid_private_key_enc'), TEST_APP_KEY);
    expect(Buffer.from(vapidPrivate, 'base64url')).toHaveLength(32);
    expect(() => open(stored.apns_private_key_enc, context('vapid_private_key_enc'), TEST_APP_KEY)).toThrow();
    expect(() => open(stored.apns_private_key_enc, context('apns_private_key_enc'), Buffer.alloc(32, 7))).toThrow();
  });

  it('stores Huawei credentials with the client secret sealed, and asks for all three flags', async () => {
    const summary = json(
      await cli(
        'apps:credentials',
        '--app',
        appId,
        '--hms-app-id',
        '107001234',
        '--hms-client-id',
        '107001235',
        '--hms-client-secret',
        'hms-secret-0123456789',
      ),
    );
    expect(summary.hms).toEqual({ app_id: '107001234', client_id: '107001235' });
    expect(JSON.stringify(summary)).not.toContain('hms-secret-0123456789');
    const stored = await row();
    expect(JSON.stringify(stored)).not.toContain('hms-secret-0123456789');
    expect(open(stored.hms_client_secret_enc, context('hms_client_secret_enc'), TEST_APP_KEY)).toBe('hms-secret-0123456789');

    const partial = await cli('apps:credentials', '--app', appId, '--hms-app-id', '107001234');
    expect([partial.code, partial.stderr.trim()]).toEqual([1, 'Huawei credentials are incomplete: missing --hms-client-id, --hms-client-secret']);
    const removed = json(await cli('apps:credentials:remove', '--app', appId, '--provider', 'hms'));
    expect(removed.hms).toBeNull();
  });

  it('keeps the generated VAPID pair when only the subject changes (subscriptions are bound to it)', async () => {
    const before = await row();
    const summary = json(await cli('apps:credentials', '--app', appId, '--vapid-subject', 'https://example.com/contact'));
    expect(summary.web_push).toEqual({ subject: 'https://example.com/contact', public_key: before.vapid_public_key });
    // The other providers are untouched.
    expect(summary.apns.key_id).toBe(apnsKey.keyId);
    expect(summary.fcm.project_id).toBe('my-project');
  });

  it('replaces the VAPID pair with one given explicitly', async () => {
    const pair = webpush.generateVAPIDKeys();
    const summary = json(
      await cli(
        'apps:credentials',
        '--app',
        appId,
        '--vapid-subject',
        'mailto:ops@example.com',
        '--vapid-public-key',
        pair.publicKey,
        '--vapid-private-key',
        pair.privateKey,
      ),
    );
    expect(summary.web_push.public_key).toBe(pair.publicKey);
    expect(open((await row()).vapid_private_key_enc, context('vapid_private_key_enc'), TEST_APP_KEY)).toBe(pair.privateKey);
  });

  describe('refuses bad input with one line on stderr and changes nothing', () => {
    const refused = async (pattern: RegExp, ...args: string[]) => {
      const before = await row();
      const result = await cli('apps:credentials', ...args);
      expect({ failed: result.code !== 0, stdout: result.stdout }).toEqual({ failed: true, stdout: '' });
      expect(lines(result.stderr)).toHaveLength(1);
      expect(result.stderr).toMatch(pattern);
      expect(await row()).toEqual(before);
    };

    it('incomplete APNs flags', () =>
      refused(
        /missing --apns-key-id/,
        '--app',
        appId,
        '--apns-key-file',
        join(dir, 'AuthKey.p8'),
        '--apns-team-id',
        apnsKey.teamId,
        '--apns-topic',
        'com.example.app',
        '--apns-production',
        'true',
      ));
    it('a file that is not a .p8 key', () =>
      refused(
        /APNs key/,
        '--app',
        appId,
        '--apns-key-file',
        join(dir, 'not-a-key.p8'),
        '--apns-key-id',
        apnsKey.keyId,
        '--apns-team-id',
        apnsKey.teamId,
        '--apns-topic',
        'com.example.app',
        '--apns-production',
        'true',
      ));
    it('a missing file', () => refused(/Cannot read --fcm-service-account-file/, '--app', appId, '--fcm-service-account-file', join(dir, 'nope.json')));
    it('a service account that is not one', () => refused(/service account/, '--app', appId, '--fcm-service-account-file', join(dir, 'AuthKey.p8')));
    it('half a VAPID pair', () =>
      refused(/--vapid-private-key/, '--app', appId, '--vapid-subject', 'mailto:a@b.c', '--vapid-public-key', webpush.generateVAPIDKeys().publicKey));
    it('a VAPID subject that is neither mailto: nor https:', () => refused(/VAPID subject/, '--app', appId, '--vapid-subject', 'ops@example.com'));
    it('an unknown app', () => refused(/not found/, '--app', '00000000-0000-4000-8000-000000000000', '--vapid-subject', 'mailto:a@b.c'));
  });
});
