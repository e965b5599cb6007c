import { createHmac } from 'node:crypto';
import { AppsService } from '../../src/apps/apps.service';
import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, installationId, newApp, newToken, TestTenant } from '../support/factories';
import { runCli, TEST_APP_KEY } from '../support/processes';

const hash = (secret: string, userId: string) => createHmac('sha256', secret).update(userId).digest('hex');

/** Identity verification (docs/api.md "Identity verification"; issue 26 item 1). */
describe('identity verification', () => {
  const ctx = useTestApp();
  let tenant: TestTenant;
  let client: string;
  let server: string;
  let secret: string;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    client = await newToken(ctx, tenant.appId, ['installations:write']);
    server = await newToken(ctx, tenant.appId, ['installations:write', 'installations:identify']);
  });

  const put = (token: string, body: Record<string, unknown>, id = installationId()) =>
    ctx
      .http()
      .put(`/api/v1/installations/${id}`)
      .set(bearer(token))
      .send({ platform: 'ios', push_token: apnsToken(), ...body });

  it('off by default: GET /api/v1/app shows the settings, and a client token binds any user (the reason to turn it on)', async () => {
    const app = await ctx.http().get('/api/v1/app').set(bearer(client)).expect(200);
    expect(app.body).toEqual({
      data: { id: tenant.appId, name: expect.any(String), settings: { frequency_cap: null, quiet_hours: null, identity_verification: false, inbox_days: 90 } },
    });
    expect((await put(client, { user_id: 'victim' })).status).toBe(201);
  });

  it('when on, a client token must prove the user id with user_id_hash; a server token need not', async () => {
    secret = (await ctx.get(AppsService).identitySecret(tenant.appId, {}))!.secret;
    expect(secret).toMatch(/^idv_[A-Za-z0-9]{40,}$/);
    expect((await ctx.get(AppsService).updateSettings(tenant.appId, { identity_verification: true }))!.settings.identity_verification).toBe(true);

    const missing = await put(client, { user_id: 'victim' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ user_id_hash: ['The user_id_hash field is required to set user_id.'] });
    const wrong = await put(client, { user_id: 'victim', user_id_hash: hash(secret, 'someone-else') });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({ user_id_hash: ['The user_id_hash does not match user_id.'] });

    const id = installationId();
    expect((await put(client, { user_id: 'alice', user_id_hash: hash(secret, 'alice') }, id)).body.data.user_id).toBe('alice');
    const patch = await ctx.http().patch(`/api/v1/installations/${id}`).set(bearer(client)).send({ user_id: 'victim' });
    expect(patch.status).toBe(422);
    // Logging out needs no hash; the server (installations:identify, or *) binds whom it likes.
    expect((await ctx.http().patch(`/api/v1/installations/${id}`).set(bearer(client)).send({ user_id: null }).expect(200)).body.data.user_id).toBeNull();
    expect((await put(server, { user_id: 'bob' })).status).toBe(201);
    expect((await put(tenant.token, { user_id: 'carol' })).status).toBe(201);
    const app = await ctx.http().get('/api/v1/app').set(bearer(client)).expect(200);
    expect(app.body.data.settings.identity_verification).toBe(true);
  });

  it('after a rotation both secrets work until the previous one is revoked', async () => {
    const rotated = (await ctx.get(AppsService).identitySecret(tenant.appId, { rotate: true }))!.secret;
    expect(rotated).not.toBe(secret);
    expect((await put(client, { user_id: 'dave', user_id_hash: hash(secret, 'dave') })).status).toBe(201);
    expect((await put(client, { user_id: 'dave', user_id_hash: hash(rotated, 'dave') })).status).toBe(201);
    await ctx.get(AppsService).identitySecret(tenant.appId, { revokePrevious: true });
    expect((await put(client, { user_id: 'dave', user_id_hash: hash(secret, 'dave') })).status).toBe(422);
    expect((await put(client, { user_id: 'dave', user_id_hash: hash(rotated, 'dave') })).status).toBe(201);
    // Sealed at rest: the secret is not in the row.
    const [row] = await ctx.db.query(`SELECT * FROM apps WHERE id = $1`, [tenant.appId]);
    expect(JSON.stringify(row)).not.toContain(rotated.slice(4));
  });

  it('the CLI: apps:settings prints and changes every setting, apps:identity-secret prints, rotates and revokes (built CLI)', async () => {
    const cli = (args: string[]) => runCli(args, { env: { DATABASE_URL: ctx.databaseUrl, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test' } });
    const other = await newApp(ctx);
    const set = await cli([
      'apps:settings',
      '--app',
      other.appId,
      '--frequency-cap',
      '3/24',
      '--quiet-hours',
      '22:00-07:00',
      '--identity-verification',
      'on',
      '--inbox-days',
      '30',
    ]);
    expect({ code: set.code, stderr: set.stderr, stdout: set.stdout }).toEqual({ code: 0, stderr: '', stdout: expect.any(String) });
    expect(JSON.parse(set.stdout)).toEqual({
      id: other.appId,
      name: expect.any(String),
      settings: { frequency_cap: { max: 3, hours: 24 }, quiet_hours: { start: '22:00', end: '07:00' }, identity_verification: true, inbox_days: 30 },
    });
    const off = JSON.parse((await cli(['apps:settings', '--app', other.appId, '--frequency-cap', 'off'])).stdout);
    expect(off.settings).toEqual({ frequency_cap: null, quiet_hours: { start: '22:00', end: '07:00' }, identity_verification: true, inbox_days: 30 });
    for (const bad of [
      ['--frequency-cap', '0/24'],
      ['--frequency-cap', '3/721'],
      ['--quiet-hours', '25:00-07:00'],
      ['--identity-verification', 'yes'],
      ['--inbox-days', '0'],
      ['--inbox-days', '366'],
      ['--inbox-days', '7.5'],
    ]) {
      const refused = await cli(['apps:settings', '--app', other.appId, ...bad]);
      expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' });
    }

    const first = JSON.parse((await cli(['apps:identity-secret', '--app', other.appId])).stdout).secret;
    expect(first).toMatch(/^idv_/);
    expect(JSON.parse((await cli(['apps:identity-secret', '--app', other.appId])).stdout).secret).toBe(first);
    const second = JSON.parse((await cli(['apps:identity-secret', '--app', other.appId, '--rotate'])).stdout).secret;
    expect(second).not.toBe(first);
    const client = await newToken(ctx, other.appId, ['installations:write']);
    expect((await put(client, { user_id: 'erin', user_id_hash: hash(first, 'erin') })).status).toBe(201);
    await cli(['apps:identity-secret', '--app', other.appId, '--revoke-previous']);
    expect((await put(client, { user_id: 'erin', user_id_hash: hash(first, 'erin') })).status).toBe(422);
    expect((await put(client, { user_id: 'erin', user_id_hash: hash(second, 'erin') })).status).toBe(201);
  }, 240_000);
});
