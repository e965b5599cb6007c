import { createHmac } from 'node:crypto';
import { AppsService } from '../../src/apps/apps.service';
import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, installationId, newApp, newToken, TestTenant } from '../support/factories';

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
    ctx.http().put(`/api/v1/installations/${id}`).set(bearer(token)).send({ platform: 'ios', push_token: apnsToken(), ...body });

  it('off by default: GET /api/v1/app shows the settings, and a client token binds any user (the reason to turn it on)', async () => {
    const app = await ctx.http().get('/api/v1/app').set(bearer(client)).expect(200);
    expect(app.body).toEqual({
      data: { id: tenant.appId, name: expect.any(String), settings: { frequency_cap: null, quiet_hours: null, identity_verification: false } },
    });
    expect((await put(client, { user_id: 'victim' })).status).toBe(201);
  });

  it('when on, a client token must prove the user id with user_id_hash; a server token need not', async () => {
    secret = (await ctx.get(AppsService).identitySecret(tenant.appId, {}))!.secret;
    expect(secret).toMatch(/^idv_[A-Za-z0-9]{40,}$/);
    await ctx.get(AppsService).updateSettings(tenant.appId, { identity_verification: true });

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
});
