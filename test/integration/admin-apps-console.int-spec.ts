import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Response, Test } from 'supertest';
import { Writable } from 'node:stream';
import { AnalyticsService, TRACE_CSV_COLUMNS } from '../../src/admin/analytics/analytics.service';
import { CredentialsService } from '../../src/credentials/credentials.service';
import { InstallationDaysService } from '../../src/delivery/installation-days/installation-days.service';
import { OperatorsService } from '../../src/operators/operators.service';
import { DeliveryTraceService } from '../../src/notifications/trace/delivery-trace.service';
import { generateApnsKey } from '../fakes';
import { bearer } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { type OpenApiDocument, responseChecker } from '../support/openapi-schemas';
import { APNS_TOPIC, seedInstallations } from '../support/providers';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';

const ADMIN = { user: 'ops', password: 'a-long-dashboard-password' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const DOCUMENT = JSON.parse(readFileSync(resolve(__dirname, '../../clients/admin/openapi.json'), 'utf8')) as OpenApiDocument;
const MISSING = '0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10';
const OWNER_ROUTES = [
  'DELETE /admin/api/apps/{app}/credentials/{provider}',
  'DELETE /admin/api/apps/{app}/tokens/{id}',
  'DELETE /admin/api/apps/{app}/webhooks/{id}',
  'GET /admin/api/apps/{app}/credentials',
  'GET /admin/api/apps/{app}/settings',
  'GET /admin/api/apps/{app}/tokens',
  'GET /admin/api/apps/{app}/webhooks',
  'PATCH /admin/api/apps/{app}/settings',
  'POST /admin/api/apps',
  'POST /admin/api/apps/{app}/credentials/check',
  'POST /admin/api/apps/{app}/tokens',
  'POST /admin/api/apps/{app}/webhooks',
  'PUT /admin/api/apps/{app}/credentials/apns',
  'PUT /admin/api/apps/{app}/credentials/fcm',
  'PUT /admin/api/apps/{app}/credentials/hms',
  'PUT /admin/api/apps/{app}/credentials/web-push',
];

/**
 * Issue 54 items 4 and 6 (docs/api.md#apps-and-credentials-in-the-dashboard, #analytics): owners
 * create an app, store and check its credentials, make and revoke tokens, manage webhooks and
 * settings through /admin/api with the session, as the CLI does; no answer carries a stored secret.
 * Every operator reads a send's funnel by platform, its trace as CSV and the app's days.
 */
describe("operator dashboard's app pages and analytics (issue 54 items 4, 6)", () => {
  const stack = useAppWithFakeProviders({ ADMIN_USER: ADMIN.user, ADMIN_PASSWORD: ADMIN.password });
  const { ctx } = stack;
  const shop = useTenantWithProviders(stack, 'Shop');
  const check = responseChecker(DOCUMENT);
  let cookie: string;
  let csrf: string;
  /** Every body the dashboard answered, to look for secrets in at the end. */
  const answered: string[] = [];

  const expectAnswer = async (method: string, path: string, request: Test, status: number): Promise<any> => {
    const res: Response = await request;
    answered.push(res.text ?? '');
    const where = `${method.toUpperCase()} ${path}`;
    expect({ where, status: res.status, body: res.status === status ? undefined : res.body }).toEqual({ where, status, body: undefined });
    const problem = check(path, method, res.status, res.body, res.text ?? '');
    if (problem) throw new Error(`${where}: ${problem}`);
    return res.body;
  };
  const get = (url: string) => ctx.http().get(url).set('Cookie', cookie);
  const send = (method: 'post' | 'put' | 'patch' | 'delete', url: string) => ctx.http()[method](url).set('Cookie', cookie).set('X-CSRF-Token', csrf);

  beforeAll(async () => {
    const login = await ctx.http().post('/admin/api/session').set('Authorization', basic(ADMIN.user, ADMIN.password)).expect(200);
    cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    csrf = login.body.data.csrf_token;
  });

  it('creates an app, stores every provider from what the operator uploads, checks them, and answers no secret', async () => {
    const created = await expectAnswer('post', '/admin/api/apps', send('post', '/admin/api/apps').send({ name: '  Garden  ' }), 201);
    expect(created.data).toMatchObject({ name: 'Garden' });
    const appId: string = created.data.id;
    const path = (rest: string) => `/admin/api/apps/${appId}${rest}`;

    const key = generateApnsKey();
    stack.fakes.apns.addKey(key);
    const apns = await expectAnswer(
      'put',
      '/admin/api/apps/{app}/credentials/apns',
      send('put', path('/credentials/apns')).send({
        private_key: key.privateKeyPem,
        key_id: key.keyId,
        team_id: key.teamId,
        topic: APNS_TOPIC,
        environment: 'sandbox',
      }),
      200,
    );
    expect(apns.data.apns).toEqual({ key_id: key.keyId, team_id: key.teamId, topic: APNS_TOPIC, production: false });

    const account = stack.fakes.fcm.createServiceAccount('garden-project');
    const fcm = await expectAnswer(
      'put',
      '/admin/api/apps/{app}/credentials/fcm',
      send('put', path('/credentials/fcm')).send({ service_account: JSON.stringify(account) }),
      200,
    );
    expect(fcm.data.fcm).toEqual({ project_id: 'garden-project', client_email: account.client_email });

    // Generated: the public key is answered for the web SDK, the private one never.
    const vapid = await expectAnswer(
      'put',
      '/admin/api/apps/{app}/credentials/web-push',
      send('put', path('/credentials/web-push')).send({ subject: 'mailto:ops@example.com' }),
      200,
    );
    expect(vapid.data.web_push).toEqual({ subject: 'mailto:ops@example.com', public_key: expect.stringMatching(/^[A-Za-z0-9_-]{87}$/) });

    const client = stack.fakes.hms.createClient();
    const hms = await expectAnswer(
      'put',
      '/admin/api/apps/{app}/credentials/hms',
      send('put', path('/credentials/hms')).send({ app_id: client.app_id, client_id: client.client_id, client_secret: client.client_secret }),
      200,
    );
    expect(hms.data.hms).toEqual({ app_id: client.app_id, client_id: client.client_id });

    const checked = await expectAnswer('post', '/admin/api/apps/{app}/credentials/check', send('post', path('/credentials/check')).send({}), 200);
    expect(checked.data.map((c: { provider: string; ok: boolean }) => [c.provider, c.ok]).sort()).toEqual([
      ['apns', true],
      ['fcm', true],
      ['hms', true],
      ['web-push', true],
    ]);
    const one = await expectAnswer('post', '/admin/api/apps/{app}/credentials/check', send('post', path('/credentials/check')).send({ provider: 'apns' }), 200);
    expect(one.data).toEqual([{ provider: 'apns', ok: true, detail: expect.any(String) }]);

    // A wrong key is refused as a field of the form, in the CLI's own words.
    const refused = await send('put', path('/credentials/apns')).send({
      private_key: 'not a key',
      key_id: 'K',
      team_id: 'T',
      topic: 't',
      environment: 'sandbox',
    });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['private_key']);
    answered.push(refused.text);

    const stored = await ctx.get(CredentialsService).forDelivery(appId);
    const removed = await expectAnswer('delete', '/admin/api/apps/{app}/credentials/{provider}', send('delete', path('/credentials/hms')), 200);
    expect(removed.data.hms).toBeNull();
    const summary = await expectAnswer('get', '/admin/api/apps/{app}/credentials', get(path('/credentials')), 200);
    expect(summary.data).toMatchObject({ app_id: appId, hms: null, apns: { key_id: key.keyId } });
    expect((await send('delete', path('/credentials/nope'))).status).toBe(404);
    const none = await send('post', path('/credentials/check')).send({ provider: 'hms' });
    expect(none.status).toBe(422);

    const secrets = [
      key.privateKeyPem,
      account.private_key,
      stored.vapid!.privateKey,
      client.client_secret,
      // The PEM bodies, in case one came back re-wrapped.
      key.privateKeyPem.split('\n')[1],
      account.private_key.split('\n')[1],
    ];
    for (const body of answered) for (const secret of secrets) expect(body.includes(secret)).toBe(false);
  });

  it('creates a token shown once, which then works, lists it without it, and revokes it; another app’s token stays out of reach', async () => {
    const path = (rest: string) => `/admin/api/apps/${shop.appId}${rest}`;
    const created = await expectAnswer(
      'post',
      '/admin/api/apps/{app}/tokens',
      send('post', path('/tokens')).send({ abilities: ['installations:write', 'notifications:send'], name: 'backend', expires_in_days: 30 }),
      201,
    );
    const { token, id } = created.data as { token: string; id: string };
    expect(token).toMatch(/^pns_/);
    await ctx.http().get('/api/v1/app').set(bearer(token)).expect(200);

    const listed = await expectAnswer('get', '/admin/api/apps/{app}/tokens', get(path('/tokens')), 200);
    expect(listed.data.find((t: { id: string }) => t.id === id)).toMatchObject({ name: 'backend', revoked_at: null });
    expect(JSON.stringify(listed)).not.toContain(token);

    const other = await expectAnswer('post', '/admin/api/apps', send('post', '/admin/api/apps').send({ name: 'Other' }), 201);
    expect((await send('delete', `/admin/api/apps/${other.data.id}/tokens/${id}`)).status).toBe(404);
    await ctx.http().get('/api/v1/app').set(bearer(token)).expect(200);

    const revoked = await expectAnswer('delete', '/admin/api/apps/{app}/tokens/{id}', send('delete', path(`/tokens/${id}`)), 200);
    expect(revoked.data.revoked_at).not.toBeNull();
    await ctx.http().get('/api/v1/app').set(bearer(token)).expect(401);

    const bad = await send('post', path('/tokens')).send({ abilities: ['fly'] });
    expect(bad.status).toBe(422);
    expect((await send('post', `/admin/api/apps/${MISSING}/tokens`).send({ abilities: ['*'] })).status).toBe(404);
  });

  it('lists, creates and deletes webhooks; the signing secret is in the creation answer only', async () => {
    const path = (rest: string) => `/admin/api/apps/${shop.appId}${rest}`;
    const created = await expectAnswer(
      'post',
      '/admin/api/apps/{app}/webhooks',
      send('post', path('/webhooks')).send({ url: 'https://hooks.example.com/push', events: ['notification.completed'] }),
      201,
    );
    const { id, secret } = created.data as { id: string; secret: string };
    expect(secret.length).toBeGreaterThan(20);
    const listed = await expectAnswer('get', '/admin/api/apps/{app}/webhooks', get(path('/webhooks')), 200);
    expect(listed.data).toEqual([expect.objectContaining({ id, url: 'https://hooks.example.com/push', events: ['notification.completed'] })]);
    expect(JSON.stringify(listed)).not.toContain(secret);

    const local = await send('post', path('/webhooks')).send({ url: 'http://127.0.0.1/x', events: ['notification.completed'] });
    expect(local.status).toBe(422);
    expect(Object.keys(local.body.errors)).toEqual(['url']);
    expect(local.body.errors.url[0]).not.toContain('--');

    await expectAnswer('delete', '/admin/api/apps/{app}/webhooks/{id}', send('delete', path(`/webhooks/${id}`)), 200);
    expect((await send('delete', path(`/webhooks/${id}`))).status).toBe(404);
    expect((await get(path('/webhooks'))).body.data).toEqual([]);
  });

  it('shows and changes the settings, only those given', async () => {
    const path = `/admin/api/apps/${shop.appId}/settings`;
    const changed = await expectAnswer(
      'patch',
      '/admin/api/apps/{app}/settings',
      send('patch', path).send({ frequency_cap: { max: 3, hours: 24 }, quiet_hours: { start: '22:00', end: '07:00' }, inbox_days: 30 }),
      200,
    );
    expect(changed.data.settings).toEqual({
      frequency_cap: { max: 3, hours: 24 },
      quiet_hours: { start: '22:00', end: '07:00' },
      identity_verification: false,
      inbox_days: 30,
    });
    const off = await expectAnswer('patch', '/admin/api/apps/{app}/settings', send('patch', path).send({ quiet_hours: null }), 200);
    expect(off.data.settings).toMatchObject({ frequency_cap: { max: 3, hours: 24 }, quiet_hours: null, inbox_days: 30 });
    const read = await expectAnswer('get', '/admin/api/apps/{app}/settings', get(path), 200);
    expect(read.data.settings).toEqual(off.data.settings);
    const bad = await send('patch', path).send({ quiet_hours: { start: '22:00', end: '22:00' }, inbox_days: 0 });
    expect(bad.status).toBe(422);
  });

  it('keeps the session and CSRF rules on every new route, and names owner as the least role for the app pages', async () => {
    const path = `/admin/api/apps/${shop.appId}`;
    expect((await ctx.http().get(`${path}/credentials`)).status).toBe(401);
    expect((await ctx.http().post('/admin/api').set('Cookie', cookie).send({ name: 'x' })).status).toBe(404);
    expect((await ctx.http().post('/admin/api/apps').set('Cookie', cookie).send({ name: 'No CSRF' })).status).toBe(403);
    expect(
      (
        await ctx
          .http()
          .post(`${path}/tokens`)
          .set('Cookie', cookie)
          .send({ abilities: ['*'] })
      ).status,
    ).toBe(403);
    expect((await ctx.http().patch(`${path}/settings`).set('Cookie', cookie).send({ inbox_days: 9 })).status).toBe(403);
    expect((await ctx.http().get(`${path}/analytics`)).status).toBe(401);

    const roles = new Map<string, string>();
    for (const [route, methods] of Object.entries(DOCUMENT.paths as Record<string, Record<string, { 'x-role'?: string }>>)) {
      for (const [method, operation] of Object.entries(methods)) roles.set(`${method.toUpperCase()} ${route}`, operation['x-role'] ?? '');
    }
    const owners = [...roles].filter(([route]) => /\/(credentials|tokens|webhooks|settings)|^POST \/admin\/api\/apps$/.test(route));
    expect(owners.map(([route]) => route).sort()).toEqual(OWNER_ROUTES);
    for (const [route, role] of owners) expect({ route, role }).toEqual({ route, role: 'owner' });
    for (const route of [
      'GET /admin/api/apps/{app}/analytics',
      'GET /admin/api/apps/{app}/notifications/{id}/funnel',
      'GET /admin/api/apps/{app}/notifications/{id}/trace.csv',
    ]) {
      expect({ route, role: roles.get(route) }).toEqual({ route, role: 'viewer' });
    }
  });

  it('keeps credentials and tokens from an editor, reading or changing; the audit log has each change and no secret', async () => {
    const operators = ctx.get(OperatorsService);
    const { invitation } = await operators.create('editor@example.com', [{ app_id: null, role: 'editor' }]);
    await operators.acceptInvitation(invitation.link.split('#')[1], 'a password for the editor');
    const login = await ctx.http().post('/admin/api/session').set('Authorization', basic('editor@example.com', 'a password for the editor')).expect(200);
    const editor = { cookie: (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0], csrf: login.body.data.csrf_token as string };
    const as = (method: 'get' | 'post' | 'put' | 'delete' | 'patch', url: string) =>
      ctx.http()[method](url).set('Cookie', editor.cookie).set('X-CSRF-Token', editor.csrf);
    const path = `/admin/api/apps/${shop.appId}`;
    for (const [method, url, body] of [
      ['get', `${path}/credentials`],
      ['put', `${path}/credentials/hms`, { app_id: '1', client_id: '2', client_secret: 'x' }],
      ['post', `${path}/credentials/check`, {}],
      ['get', `${path}/tokens`],
      ['post', `${path}/tokens`, { abilities: ['*'] }],
      ['get', `${path}/webhooks`],
      ['get', `${path}/settings`],
      ['patch', `${path}/settings`, { inbox_days: 5 }],
      ['post', '/admin/api/apps', { name: 'By an editor' }],
    ] as const) {
      const res = await as(method, url).send(body);
      expect({ method, url, status: res.status }).toEqual({ method, url, status: 403 });
    }
    // Analytics are for every operator.
    expect((await as('get', `${path}/analytics`)).status).toBe(200);

    const audit = await get('/admin/api/audit-log?limit=100').expect(200);
    const actions = (audit.body.data as { action: string }[]).map((entry) => entry.action);
    for (const action of [
      'app.create',
      'credentials.set',
      'credentials.remove',
      'token.create',
      'token.revoke',
      'webhook.create',
      'webhook.delete',
      'app.settings',
    ]) {
      expect(actions).toContain(action);
    }
    const text = JSON.stringify(audit.body);
    expect(text).not.toMatch(/PRIVATE KEY|pns_[A-Za-z0-9]{43}|whsec_/);
  });

  describe('analytics', () => {
    const COUNT = 2300;
    let sendId: string;
    let opener: string;

    beforeAll(async () => {
      const seeded = await seedInstallations(ctx, shop.appId, stack.fakes, COUNT, 'fan');
      const users = seeded.slice(0, COUNT).map((s) => s.userId);
      const res = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(shop.token))
        .send({ notification: { title: 'Spring sale', body: '20% off' }, recipients: { user_ids: users.slice(0, 1000) }, options: { category: 'marketing' } });
      expect(res.status).toBe(202);
      sendId = res.body.data.id;
      await notificationCompleted(ctx, shop.token, sendId, 120_000);
      opener = `inst-${users[0]}`;
      await ctx.http().post(`/api/v1/notifications/${sendId}/events`).set(bearer(shop.token)).send({ installation_id: opener, type: 'opened' }).expect(202);
    }, 180_000);

    it('splits a send’s funnel by platform', async () => {
      const funnel = await expectAnswer(
        'get',
        '/admin/api/apps/{app}/notifications/{id}/funnel',
        get(`/admin/api/apps/${shop.appId}/notifications/${sendId}/funnel`),
        200,
      );
      const byPlatform = Object.fromEntries(funnel.data.map((row: { platform: string }) => [row.platform, row]));
      expect(Object.keys(byPlatform).sort()).toEqual(['android', 'ios', 'web']);
      // seedInstallations: half iOS, a quarter Android, a quarter web.
      expect(byPlatform.ios).toMatchObject({ deliveries: 500, accepted: 500, opened: 1, received: 1, displayed: 1 });
      expect(byPlatform.android).toMatchObject({ deliveries: 250, accepted: 250, opened: 0 });
      expect(byPlatform.web).toMatchObject({ deliveries: 250, accepted: 250, opened: 0 });
      expect((await get(`/admin/api/apps/${shop.appId}/notifications/${MISSING}/funnel`)).status).toBe(404);
    });

    it('streams the trace as CSV a page at a time: every delivery once, never the whole trace in memory', async () => {
      const trace = ctx.get(DeliveryTraceService);
      const page = jest.spyOn(trace, 'page');
      const res = await get(`/admin/api/apps/${shop.appId}/notifications/${sendId}/trace.csv`).buffer(true);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="trace-${sendId}.csv"`);
      // Chunked: no Content-Length, as the length is not known before the last page.
      expect(res.headers['content-length']).toBeUndefined();
      const lines = res.text.trimEnd().split('\n');
      expect(lines[0]).toBe(TRACE_CSV_COLUMNS.join(','));
      expect(lines.length - 1).toBe(1000);
      expect(new Set(lines.slice(1).map((line) => line.split(',')[0])).size).toBe(1000);
      expect(lines.find((line) => line.startsWith(`${opener},`))).toMatch(/,accepted,/);
      // 1000 rows in pages of TRACE_CSV_PAGE (1000): the page, then the empty end.
      expect(page.mock.calls.length).toBeGreaterThanOrEqual(1);
      expect(page.mock.calls.every((call) => call[2] === 1000)).toBe(true);
      page.mockRestore();
      expect((await get(`/admin/api/apps/${shop.appId}/notifications/${MISSING}/trace.csv`)).status).toBe(404);
    });

    it('pages a trace larger than a page: each page once, in order', async () => {
      const analytics = ctx.get(AnalyticsService);
      const trace = ctx.get(DeliveryTraceService);
      const page = jest.spyOn(trace, 'page');
      const chunks: string[] = [];
      const output = new Writable({
        highWaterMark: 1024,
        write(chunk: Buffer, _encoding, done) {
          chunks.push(chunk.toString());
          setImmediate(done);
        },
      });
      const rows = await analytics.traceCsv(shop.appId, sendId, output, 150);
      expect(rows).toBe(1000);
      // Seven pages of 150 (the last short): one at a time, each read after the last was written.
      expect(page.mock.calls.length).toBe(7);
      expect(page.mock.calls.map((call) => call[2])).toEqual(Array(7).fill(150));
      const lines = chunks.join('').trimEnd().split('\n').slice(1);
      expect(new Set(lines.map((line) => line.split(',')[0])).size).toBe(1000);
      page.mockRestore();
    });

    it('counts the app’s days: installations by platform and permission, sends and outcomes, opened rate by category', async () => {
      await ctx.get(InstallationDaysService).snapshot();
      const today = new Date().toISOString().slice(0, 10);
      const answer = await expectAnswer('get', '/admin/api/apps/{app}/analytics', get(`/admin/api/apps/${shop.appId}/analytics?days=7`), 200);
      const data = answer.data as {
        installations: { day: string; platform: string; permission: string; installations: number }[];
        sends: { day: string; sends: number; accepted: number; opened: number }[];
        categories: { category: string; accepted: number; opened: number; opened_rate: number | null }[];
      };
      const granted = Object.fromEntries(
        data.installations.filter((r) => r.day === today && r.permission === 'granted').map((r) => [r.platform, r.installations]),
      );
      expect(granted).toMatchObject({ ios: COUNT / 2, android: COUNT / 4, web: COUNT / 4 });
      expect(data.sends.find((d) => d.day === today)).toMatchObject({ accepted: expect.any(Number), opened: 1 });
      const marketing = data.categories.find((c) => c.category === 'marketing')!;
      expect(marketing).toEqual({ category: 'marketing', sends: 1, accepted: 1000, opened: 1, opened_rate: 0.001 });
      expect((await get(`/admin/api/apps/${shop.appId}/analytics?days=500`)).status).toBe(422);
      expect((await get(`/admin/api/apps/${MISSING}/analytics`)).status).toBe(404);
    });
  });
});
