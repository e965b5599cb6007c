import { TokensService } from '../../src/auth/tokens.service';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, newInstallation, newToken, TestTenant } from '../support/factories';

const SHOP = 'https://shop.example.com';

/**
 * The token a web page embeds (docs/api.md#tokens, "Client tokens") and the CORS that lets the page use
 * it: what the web SDK (clients/web) relies on, and what a leaked client token cannot do.
 */
describe('web clients (docs/api.md#tokens)', () => {
  const ctx = useTestApp({ env: { CORS_ALLOWED_ORIGINS: `${SHOP}, http://127.0.0.1:8080` } });
  let tenant: TestTenant;
  let clientToken: string;
  let notificationId: string;
  const installationId = 'inst-web-client';

  beforeAll(async () => {
    tenant = await newApp(ctx);
    clientToken = await newToken(ctx, tenant.appId, ['installations:write', 'events:write']);
    await newInstallation(ctx, tenant.token, { user_id: 'alice' }, installationId);
    const sent = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ recipients: { user_ids: ['alice'] }, notification: { title: 'Hi', body: 'There' } });
    notificationId = sent.body.data.id;
  });

  describe('a client token (installations:write and events:write only)', () => {
    it('is refused everything else: reading installations and notifications, sending', async () => {
      const refused = {
        'GET installation': ctx.http().get(`/api/v1/installations/${installationId}`),
        'GET notifications': ctx.http().get('/api/v1/notifications'),
        'GET notification': ctx.http().get(`/api/v1/notifications/${notificationId}`),
        'POST notification': ctx
          .http()
          .post('/api/v1/notifications')
          .send({ recipients: { user_ids: ['alice'] }, notification: { title: 'Hi', body: 'x' } }),
      };
      for (const [route, request] of Object.entries(refused)) {
        const res = await request.set(bearer(clientToken));
        expect({ route, status: res.status, body: res.body }).toEqual({
          route,
          status: 403,
          body: { message: 'This action is unauthorized.' },
        });
      }
      // Nothing was sent by the refused POST: still the one notification.
      const list = await ctx.http().get('/api/v1/notifications').set(bearer(tenant.token)).expect(200);
      expect(list.body.data.map((n: { id: string }) => n.id)).toEqual([notificationId]);
    });

    it('keeps its own installation current and reports events', async () => {
      const id = 'inst-web-client-own';
      await ctx
        .http()
        .put(`/api/v1/installations/${id}`)
        .set(bearer(clientToken))
        .send({ platform: 'ios', push_token: 'ab'.repeat(32), user_id: 'bob' })
        .expect(201);
      await ctx.http().patch(`/api/v1/installations/${id}`).set(bearer(clientToken)).send({ user_id: null }).expect(200);
      await ctx.http().delete(`/api/v1/installations/${id}`).set(bearer(clientToken)).expect(204);
      // An event for an installation the notification was not sent to is refused (5.4), so a
      // client token cannot inflate statistics with made-up installations.
      const event = await ctx
        .http()
        .post(`/api/v1/notifications/${notificationId}/events`)
        .set(bearer(clientToken))
        .send({ installation_id: 'inst-never-targeted', type: 'opened' });
      expect(event.status).toBe(422);
    });

    it('is refused once revoked (rotation)', async () => {
      const tokens = ctx.get(TokensService);
      const old = await tokens.create({ appId: tenant.appId, abilities: ['installations:write', 'events:write'] });
      await ctx.http().patch(`/api/v1/installations/${installationId}`).set(bearer(old.token)).send({ permission: 'granted' }).expect(200);
      await tokens.revoke(old.id);
      await ctx.http().patch(`/api/v1/installations/${installationId}`).set(bearer(old.token)).send({ permission: 'granted' }).expect(401);
      await ctx.http().patch(`/api/v1/installations/${installationId}`).set(bearer(clientToken)).send({ permission: 'granted' }).expect(200);
    });
  });

  describe('CORS_ALLOWED_ORIGINS', () => {
    it('answers the preflight of a listed origin before authentication, without credentials', async () => {
      const res = await ctx
        .http()
        .options(`/api/v1/installations/${installationId}`)
        .set('Origin', SHOP)
        .set('Access-Control-Request-Method', 'PUT')
        .set('Access-Control-Request-Headers', 'authorization,content-type');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(SHOP);
      expect(res.headers['access-control-allow-methods']).toBe('GET,PUT,PATCH,POST,DELETE');
      expect(res.headers['access-control-allow-headers']).toBe('Authorization,Content-Type,Idempotency-Key,X-Request-Id,X-User-Id-Hash,Last-Event-ID');
      expect(res.headers['access-control-max-age']).toBe('600');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers.vary).toMatch(/Origin/);
    });

    it('lets a listed origin read answers, errors included, with the headers a client needs', async () => {
      const ok = await ctx.http().get(`/api/v1/notifications/${notificationId}`).set('Origin', 'HTTP://127.0.0.1:8080').set(bearer(tenant.token));
      expect(ok.status).toBe(200);
      expect(ok.headers['access-control-allow-origin']).toBe('HTTP://127.0.0.1:8080');
      expect(ok.headers['access-control-expose-headers']).toContain('Retry-After');
      const refused = await ctx.http().get('/api/v1/notifications').set('Origin', SHOP).set(bearer(clientToken));
      expect(refused.status).toBe(403);
      expect(refused.headers['access-control-allow-origin']).toBe(SHOP);
    });

    it('gives an origin not listed, and routes outside /api/, no CORS headers at all', async () => {
      const preflight = await ctx
        .http()
        .options(`/api/v1/installations/${installationId}`)
        .set('Origin', 'https://evil.example.net')
        .set('Access-Control-Request-Method', 'PUT');
      expect(preflight.status).toBe(404);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      const read = await ctx.http().get(`/api/v1/notifications/${notificationId}`).set('Origin', 'https://shop.example.com.evil.net').set(bearer(tenant.token));
      expect(read.headers['access-control-allow-origin']).toBeUndefined();
      const health = await ctx.http().get('/health/live').set('Origin', SHOP);
      expect(health.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
