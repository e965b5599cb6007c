import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import webpush from 'web-push';
import { open } from '../../src/credentials/secret-box';
import { generateApnsKey } from '../fakes';
import { apnsToken, fcmToken } from '../support/factories';
import { freePort, runCli, RunResult, serviceEnv, ServiceProcess, TEST_APP_KEY } from '../support/processes';
import { APNS_TOPIC, FakeProviders, startFakeProviders } from '../support/providers';
import { useBuiltServices } from '../support/use-built-services';
import { waitFor } from '../support/wait-for';

jest.setTimeout(120_000);

/**
 * The operator commands of docs/operations.md that change what is stored, run as built against a
 * running service: `app-key:rotate` (with APP_KEY_PREVIOUS), `apps:credentials:remove` and
 * `apps:delete`. Deliveries go to the loopback fakes.
 */
describe('operator CLI: APP_KEY rotation, removing credentials, deleting an app', () => {
  let fakes: FakeProviders;
  let dir: string;
  let sql: Client;
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  // Declared before useBuiltServices, so it runs before that drops the database (hooks run in order).
  afterAll(async () => {
    await sql?.end();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const stores = useBuiltServices();
  afterAll(() => fakes?.stop());

  const KEY_A = TEST_APP_KEY;
  const KEY_B = randomBytes(32).toString('base64');
  let vapid: { publicKey: string; privateKey: string };
  let apnsIds: { keyId: string; teamId: string };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pns-cli-ops-'));
    const key = generateApnsKey();
    fakes.apns.addKey(key);
    writeFileSync(join(dir, 'AuthKey.p8'), key.privateKeyPem);
    writeFileSync(join(dir, 'service-account.json'), JSON.stringify(fakes.fcm.createServiceAccount('cli-ops')));
    vapid = webpush.generateVAPIDKeys();
    fakes.web.expectVapidPublicKey(vapid.publicKey);
    apnsIds = key;
    sql = new Client({ connectionString: stores.database.url });
    await sql.connect();
  });

  const cli = (args: string[], keys: { APP_KEY: string; APP_KEY_PREVIOUS?: string }) =>
    runCli(args, { env: { DATABASE_URL: stores.database.url, NODE_ENV: 'test', ...keys } });
  const json = (result: RunResult): any => {
    if (result.code !== 0) throw new Error(`command failed (${result.code}):\n${result.stderr}`);
    expect(result.stderr).toBe('');
    return JSON.parse(result.stdout);
  };
  /** An app with an all-abilities token and credentials for the three fakes, sealed under `appKey`. */
  const newApp = async (name: string, appKey: string) => {
    const keys = { APP_KEY: appKey };
    const app = json(await cli(['apps:create', '--name', name], keys));
    const token = json(await cli(['tokens:create', '--app', app.id, '--abilities', '*'], keys)).token as string;
    json(
      await cli(
        [
          'apps:credentials',
          '--app',
          app.id,
          '--apns-key-file',
          join(dir, 'AuthKey.p8'),
          '--apns-key-id',
          apnsIds.keyId,
          '--apns-team-id',
          apnsIds.teamId,
          '--apns-topic',
          APNS_TOPIC,
          '--apns-production',
          'false',
          '--fcm-service-account-file',
          join(dir, 'service-account.json'),
          '--vapid-subject',
          'mailto:ops@example.com',
          '--vapid-public-key',
          vapid.publicKey,
          '--vapid-private-key',
          vapid.privateKey,
        ],
        keys,
      ),
    );
    return { id: app.id as string, token };
  };

  /** The built service in APP_MODE=all with the given keys; its port. */
  const start = async (keys: Record<string, string>) => {
    const port = await freePort();
    const service = ServiceProcess.start(
      serviceEnv(
        { databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix },
        {
          ...fakes.env,
          ...keys,
          PORT: String(port),
          NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? `${__dirname}/../fakes/certs/ca.pem`,
        },
      ),
    );
    await service.waitForHttp(port);
    return { service, port };
  };
  const api = async (port: number, token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as any };
  };
  /** Registers an iOS and an Android installation for `user`, sends to it, and returns the completed notification. */
  const deliverTo = async (port: number, token: string, user: string) => {
    for (const [platform, push_token] of [
      ['ios', apnsToken()],
      ['android', fcmToken()],
    ]) {
      expect((await api(port, token, 'PUT', `/api/v1/installations/${user}-${platform}`, { platform, push_token, user_id: user })).status).toBe(201);
    }
    const sent = await api(port, token, 'POST', '/api/v1/notifications', { recipients: { user_ids: [user] }, notification: { title: 'T', body: 'B' } });
    expect(sent.status).toBe(202);
    return waitFor(async () => {
      const { body } = await api(port, token, 'GET', `/api/v1/notifications/${sent.body.data.id}`);
      return body.data.completed_at ? body.data : null;
    }, `notification to ${user} to complete`);
  };

  let app: { id: string; token: string };
  let port: number;

  it('app-key:rotate re-seals every secret under the new key; deliveries work before, during and after, then with the new key alone', async () => {
    app = await newApp('Rotated', KEY_A);
    // The rolling step of a rotation: processes get the new APP_KEY and the old one as APP_KEY_PREVIOUS.
    const during = await start({ APP_KEY: KEY_B, APP_KEY_PREVIOUS: KEY_A });
    expect((await deliverTo(during.port, app.token, 'before-rotation')).statistics).toMatchObject({ installations: 2, accepted: 2 });

    const rotated = json(await cli(['app-key:rotate'], { APP_KEY: KEY_B, APP_KEY_PREVIOUS: KEY_A }));
    expect(rotated).toEqual({ apps: 1, secrets: 3, resealed: 3, already_current: 0 });
    // Idempotent: a second run finds everything under the new key already.
    expect(json(await cli(['app-key:rotate'], { APP_KEY: KEY_B, APP_KEY_PREVIOUS: KEY_A }))).toEqual({
      apps: 1,
      secrets: 3,
      resealed: 0,
      already_current: 3,
    });
    // Every secret opens under B and no longer under A.
    const [row] = (await sql.query(`SELECT * FROM app_credentials WHERE app_id = $1`, [app.id])).rows;
    for (const column of ['apns_private_key_enc', 'fcm_service_account_enc', 'vapid_private_key_enc']) {
      expect(open(row[column], `app_credentials:${app.id}:${column}`, KEY_B)).not.toBe('');
      expect(() => open(row[column], `app_credentials:${app.id}:${column}`, KEY_A)).toThrow(/APP_KEY is not the key/);
    }
    // The old key alone no longer opens them: the command says so, exits 1 and changes nothing.
    const stale = await cli(['app-key:rotate'], { APP_KEY: KEY_A });
    expect(stale.code).toBe(1);
    expect(stale.stdout).toBe('');
    expect(stale.stderr).toMatch(/^The apns_private_key_enc of app [0-9a-f-]{36} opens under neither APP_KEY nor APP_KEY_PREVIOUS; nothing was changed\n$/);

    expect((await deliverTo(during.port, app.token, 'after-rotation')).statistics).toMatchObject({ installations: 2, accepted: 2 });
    await during.service.stop();

    // The last step: APP_KEY_PREVIOUS is dropped.
    const after = await start({ APP_KEY: KEY_B });
    port = after.port;
    expect((await deliverTo(port, app.token, 'new-key-only')).statistics).toMatchObject({ installations: 2, accepted: 2 });
  });

  it('apps:credentials:remove removes one provider: its platform is then skipped as NoCredentials', async () => {
    const other = await newApp('Without APNs', KEY_B);
    const summary = json(await cli(['apps:credentials:remove', '--app', other.id, '--provider', 'apns'], { APP_KEY: KEY_B }));
    expect(summary).toMatchObject({ app_id: other.id, apns: null, fcm: { project_id: 'cli-ops' }, web_push: { public_key: vapid.publicKey } });
    const [row] = (await sql.query(`SELECT * FROM app_credentials WHERE app_id = $1`, [other.id])).rows;
    expect(row).toMatchObject({ apns_key_id: null, apns_team_id: null, apns_topic: null, apns_production: null, apns_private_key_enc: null });

    const done = await deliverTo(port, other.token, 'no-apns');
    expect(done.statistics).toMatchObject({ installations: 2, accepted: 1, skipped: 1 });
    const reasons = (await sql.query(`SELECT platform, status, reason FROM deliveries WHERE notification_id = $1 ORDER BY platform`, [done.id])).rows;
    expect(reasons).toEqual([
      { platform: 'android', status: 'accepted', reason: null },
      { platform: 'ios', status: 'skipped', reason: 'NoCredentials' },
    ]);

    const bad = await cli(['apps:credentials:remove', '--app', other.id, '--provider', 'gcm'], { APP_KEY: KEY_B });
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/--provider must be apns, fcm, web-push or hms/);
    const unknown = await cli(['apps:credentials:remove', '--app', '00000000-0000-4000-8000-000000000000', '--provider', 'fcm'], { APP_KEY: KEY_B });
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: 'App 00000000-0000-4000-8000-000000000000 not found\n' });
  });

  it('apps:delete deletes the app with its tokens, credentials, installations, notifications and deliveries', async () => {
    const doomed = await newApp('Doomed', KEY_B);
    const done = await deliverTo(port, doomed.token, 'doomed');
    expect(done.statistics).toMatchObject({ accepted: 2 });
    await api(port, doomed.token, 'POST', `/api/v1/notifications/${done.id}/events`, { installation_id: 'doomed-ios', type: 'opened' });
    // A badge count has no foreign key to cascade from (migration InstallationBadgesWithoutKey).
    expect((await api(port, doomed.token, 'PATCH', '/api/v1/installations/doomed-ios', { badge: 3 })).status).toBe(200);
    const installationIds = (await sql.query(`SELECT id FROM installations WHERE app_id = $1`, [doomed.id])).rows.map((row) => row.id);
    const counted = `SELECT count(*)::int AS n FROM installation_badges WHERE installation_id = ANY($1::uuid[])`;
    expect((await sql.query(counted, [installationIds])).rows[0].n).toBe(1);

    const deleted = json(await cli(['apps:delete', '--id', doomed.id], { APP_KEY: KEY_B }));
    expect(deleted).toEqual({
      id: doomed.id,
      name: 'Doomed',
      created_at: expect.any(String),
      deleted: { tokens: 1, installations: 2, notifications: 1, deliveries: 2 },
    });
    const left = (
      await sql.query(
        `SELECT (SELECT count(*) FROM apps WHERE id = $1)::int AS apps,
                (SELECT count(*) FROM api_tokens WHERE app_id = $1)::int AS tokens,
                (SELECT count(*) FROM app_credentials WHERE app_id = $1)::int AS credentials,
                (SELECT count(*) FROM installations WHERE app_id = $1)::int AS installations,
                (SELECT count(*) FROM notifications WHERE app_id = $1)::int AS notifications,
                (SELECT count(*) FROM deliveries WHERE notification_id = $2)::int AS deliveries,
                (SELECT count(*) FROM notification_events WHERE notification_id = $2)::int AS events`,
        [doomed.id, done.id],
      )
    ).rows[0];
    expect(left).toEqual({ apps: 0, tokens: 0, credentials: 0, installations: 0, notifications: 0, deliveries: 0, events: 0 });
    expect((await sql.query(counted, [installationIds])).rows[0].n).toBe(0);
    // Its token is refused at once; the other apps are untouched.
    expect((await api(port, doomed.token, 'GET', `/api/v1/notifications/${done.id}`)).status).toBe(401);
    expect((await api(port, app.token, 'GET', '/api/v1/notifications')).status).toBe(200);

    const again = await cli(['apps:delete', '--id', doomed.id], { APP_KEY: KEY_B });
    expect(again).toMatchObject({ code: 1, stdout: '', stderr: `App ${doomed.id} not found\n` });
    expect((await cli(['apps:delete', '--id', 'not-a-uuid'], { APP_KEY: KEY_B })).stderr).toBe('App not-a-uuid not found\n');
  });
});
