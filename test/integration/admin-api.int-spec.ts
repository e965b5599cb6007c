import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Response, Test } from 'supertest';
import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, newInstallation, type TestTenant } from '../support/factories';
import { type OpenApiDocument, responseChecker } from '../support/openapi-schemas';
import { configureCredentials } from '../support/providers';
import { servedRoutes } from '../support/served-routes';

const ADMIN = { user: 'ops', password: 'a-long-dashboard-password' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const DOCUMENT = JSON.parse(readFileSync(resolve(__dirname, '../../clients/admin/openapi.json'), 'utf8')) as OpenApiDocument;
const MISSING = '0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10';

/**
 * Issue 25: the operator dashboard's API answers as its own OpenAPI document says
 * (clients/admin/openapi.json, which src/admin/admin-openapi.spec.ts keeps equal to the code and
 * from which the dashboard's types are generated): the routes served are the routes described,
 * and every answer, refusals included, is a status its operation documents with a body its
 * schema accepts (closed objects: no field more, none missing).
 */
describe("operator dashboard's API against its OpenAPI document (issue 25)", () => {
  const ctx = useTestApp({ env: { ADMIN_USER: ADMIN.user, ADMIN_PASSWORD: ADMIN.password } });
  const check = responseChecker(DOCUMENT);
  let tenant: TestTenant;
  let cookie: string;
  let csrf: string;
  const ids: Record<string, string> = {};

  /** Sends `request`, expects `status`, and that the document describes the answer; returns its body. */
  const expectAnswer = async (method: string, path: string, request: Test, status: number): Promise<any> => {
    const res: Response = await request;
    const where = `${method.toUpperCase()} ${path}`;
    expect({ where, status: res.status, body: res.status === status ? undefined : res.body }).toEqual({ where, status, body: undefined });
    // Issue 57 item 6: no answer of the dashboard's API is kept by a browser or a proxy.
    expect({ where, cacheControl: res.headers['cache-control'] }).toEqual({ where, cacheControl: 'no-store' });
    const problem = check(path, method, res.status, res.body, res.text ?? '');
    if (problem) throw new Error(`${where}: ${problem}`);
    return res.body;
  };
  const get = (url: string) => ctx.http().get(url).set('Cookie', cookie);
  const post = (url: string) => ctx.http().post(url).set('Cookie', cookie).set('X-CSRF-Token', csrf);

  beforeAll(async () => {
    tenant = await newApp(ctx, 'Documented shop');
    // APNs only: the other providers' summaries are null, as the document allows.
    await configureCredentials(ctx, tenant.appId, ['apns']);
    const user = 'documented-user';
    const installations = [
      await newInstallation(ctx, tenant.token, { user_id: user, tags: ['beta'], device: { locale: 'fr-CA' } }),
      await newInstallation(ctx, tenant.token, { user_id: user }),
    ];
    ids.installation = installations[0].installation_id;
    const send = (body: object) => ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).send(body).expect(202);
    ids.sent = (
      await send({ recipients: { user_ids: [user] }, notification: { title: 'Documented', body: 'b', localizations: { fr: { title: 'Documenté' } } } })
    ).body.data.id;
    ids.scheduled = (
      await send({ recipients: { tags: ['beta'] }, notification: { title: 'Later', body: 'b' }, send_at: new Date(Date.now() + 86_400_000).toISOString() })
    ).body.data.id;
    // What the worker would have written (this app has no worker): deliveries, their minutes, completion.
    await ctx.db.query(
      `WITH started AS (UPDATE notifications SET processing_started_at = now() WHERE id = $1 RETURNING processing_started_at)
       INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, attempts)
       SELECT $1, t.id, processing_started_at, 'ios', $3, 0, t.status, t.reason, 1
       FROM started, unnest($2::uuid[], ARRAY['accepted', 'failed'], ARRAY[NULL, 'BadDeviceToken']) AS t(id, status, reason)`,
      [ids.sent, installations.map((i) => i.id), user],
    );
    await ctx.db.query(
      `INSERT INTO delivery_minutes (notification_id, minute, outcome, count)
       VALUES ($1, date_trunc('minute', now()), 'accepted', 1), ($1, date_trunc('minute', now()), 'failed', 1), ($1, date_trunc('minute', now()), 'pending', 2)`,
      [ids.sent],
    );
    await ctx.db.query(`UPDATE notifications SET completed_at = now(), stat_accepted = 1, stat_failed = 1 WHERE id = $1`, [ids.sent]);
    // A webhook whose endpoint was down: one message given up, one being retried.
    const webhook = await ctx.get(WebhooksService).create(tenant.appId, 'https://shop.example.com/hooks/push', 'notification.completed');
    await ctx.db.query(
      `INSERT INTO webhook_messages (webhook_id, type, subject_id, status, attempts, last_error, finished_at)
       VALUES ($1, 'notification.completed', $2, 'failed', 5, 'HTTP 500', now()), ($1, 'notification.completed', $2, 'pending', 1, 'ECONNREFUSED', NULL)`,
      [webhook.id, ids.sent],
    );
  });

  it('serves exactly the routes the document describes', () => {
    const served = servedRoutes(ctx.app)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .filter((route) => route.includes(' /admin/api/'))
      .sort();
    const documented = Object.entries(DOCUMENT.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(served.length).toBeGreaterThanOrEqual(12);
    expect(served).toEqual(documented);
  });

  it('logs in and out as documented', async () => {
    const none = await expectAnswer('get', '/admin/api/session', ctx.http().get('/admin/api/session'), 200);
    expect(none).toEqual({ data: null });
    await expectAnswer('post', '/admin/api/session', ctx.http().post('/admin/api/session').set('Authorization', basic(ADMIN.user, 'wrong-password-here')), 401);
    const login = await ctx.http().post('/admin/api/session').set('Authorization', basic(ADMIN.user, ADMIN.password));
    expect(check('/admin/api/session', 'post', login.status, login.body, login.text)).toBeNull();
    cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    csrf = login.body.data.csrf_token;
    const session = await expectAnswer('get', '/admin/api/session', get('/admin/api/session'), 200);
    expect(session.data).toEqual(login.body.data);
  });

  it('answers every read with the documented shapes', async () => {
    const app = `/admin/api/apps/${tenant.appId}`;
    const overview = await expectAnswer('get', '/admin/api/overview', get('/admin/api/overview'), 200);
    expect(overview.data.webhooks).toMatchObject({ failed: 1, retrying: 1 });
    const apps = await expectAnswer('get', '/admin/api/apps', get('/admin/api/apps'), 200);
    expect(apps.data.find((a: { id: string }) => a.id === tenant.appId).credentials).toMatchObject({ fcm: null, web_push: null });
    await expectAnswer('get', '/admin/api/apps/{app}', get(app), 200);

    const list = await expectAnswer('get', '/admin/api/apps/{app}/notifications', get(`${app}/notifications?limit=1`), 200);
    expect(list.meta.next_cursor).not.toBeNull();
    await expectAnswer('get', '/admin/api/apps/{app}/notifications', get(`${app}/notifications?search=document&cursor=${list.meta.next_cursor}`), 200);
    const detail = await expectAnswer('get', '/admin/api/apps/{app}/notifications/{id}', get(`${app}/notifications/${ids.sent}`), 200);
    expect(detail.data).toMatchObject({ status: 'completed', minutes: [{ accepted: 1, failed: 1, retried: 2 }] });
    const trace = await expectAnswer('get', '/admin/api/apps/{app}/notifications/{id}/deliveries', get(`${app}/notifications/${ids.sent}/deliveries`), 200);
    expect(trace.data).toHaveLength(2);
    const failed = `${app}/notifications/${ids.sent}/deliveries?status=failed&reason=BadDeviceToken&limit=10`;
    expect((await expectAnswer('get', '/admin/api/apps/{app}/notifications/{id}/deliveries', get(failed), 200)).data).toHaveLength(1);

    const byUser = await expectAnswer('get', '/admin/api/apps/{app}/installations', get(`${app}/installations?user_id=documented-user`), 200);
    expect(byUser.data).toHaveLength(2);
    const byId = await expectAnswer('get', '/admin/api/apps/{app}/installations', get(`${app}/installations?installation_id=${ids.installation}`), 200);
    expect(byId.data[0].notifications[0].delivery).toMatchObject({ status: 'accepted', reason: null });

    // The browser: pages of installations filtered as a send's recipients.filter, the count on the first.
    const browse = '/admin/api/apps/{app}/installations/browse';
    const tagged = await expectAnswer(
      'post',
      browse,
      post(`${app}/installations/browse`).send({ filter: { field: 'tags', op: 'contains', value: 'beta' } }),
      200,
    );
    expect(tagged.data.map((i: { installation_id: string }) => i.installation_id)).toEqual([ids.installation]);
    expect(tagged.meta).toEqual({
      next_cursor: null,
      count: { installations: 1, sendable: 1, users: 1, platforms: { ios: 1, android: 0, web: 0, huawei: 0 } },
    });
    const first = await expectAnswer('post', browse, post(`${app}/installations/browse`).send({ limit: 1 }), 200);
    expect(first.meta.count.installations).toBe(2);
    const second = await expectAnswer('post', browse, post(`${app}/installations/browse`).send({ limit: 1, cursor: first.meta.next_cursor }), 200);
    expect(second.meta.count).toBeNull();
    expect([...first.data, ...second.data].map((i: { installation_id: string }) => i.installation_id).sort()).toHaveLength(2);
    expect(second.data[0].installation_id > first.data[0].installation_id).toBe(true);
  });

  it('says how a send went, jumps to a date and tells the trace in full (issue 31 items 11 and 12)', async () => {
    const app = `/admin/api/apps/${tenant.appId}`;
    const list = (query: string) => expectAnswer('get', '/admin/api/apps/{app}/notifications', get(`${app}/notifications${query}`), 200);
    // One accepted, one failed: completed, but not a full success.
    const detail = await expectAnswer('get', '/admin/api/apps/{app}/notifications/{id}', get(`${app}/notifications/${ids.sent}`), 200);
    expect(detail.data).toMatchObject({ status: 'completed', outcome: 'partly_failed' });
    const all = await list('');
    expect(all.data.map((n: { id: string; outcome: string | null }) => [n.id, n.outcome])).toEqual([
      [ids.scheduled, null],
      [ids.sent, 'partly_failed'],
    ]);
    // A jump to a date: the notifications created before it, newest first; none before the first.
    const [{ created_at: newest }, { created_at: oldest }] = all.data as { created_at: string }[];
    expect((await list(`?before=${encodeURIComponent(newest)}`)).data.map((n: { id: string }) => n.id)).toEqual([ids.sent]);
    expect((await list(`?before=${encodeURIComponent(oldest)}`)).data).toEqual([]);
    expect((await list(`?before=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}&limit=1`)).data[0].id).toBe(ids.scheduled);
    await expectAnswer('get', '/admin/api/apps/{app}/notifications', get(`${app}/notifications?before=yesterday`), 422);

    // The French-speaking device gets the `fr` variant, the other the default; a retry shows when it comes.
    const retryAt = new Date(Date.now() + 90_000);
    await ctx.db.query(
      `UPDATE deliveries SET status = 'pending', reason = 'ServiceUnavailable', next_attempt_at = $2 WHERE notification_id = $1 AND status = 'failed'`,
      [ids.sent, retryAt],
    );
    try {
      const trace = await expectAnswer('get', '/admin/api/apps/{app}/notifications/{id}/deliveries', get(`${app}/notifications/${ids.sent}/deliveries`), 200);
      const entries = Object.fromEntries(trace.data.map((d: { installation_id: string }) => [d.installation_id, d]));
      expect(entries[ids.installation]).toMatchObject({ status: 'accepted', next_attempt_at: null, localization: 'fr', scheduled_for: null });
      const other = trace.data.find((d: { installation_id: string }) => d.installation_id !== ids.installation);
      expect(other).toMatchObject({ status: 'pending', reason: 'ServiceUnavailable', next_attempt_at: retryAt.toISOString(), localization: null });
    } finally {
      await ctx.db.query(
        `UPDATE deliveries SET status = 'failed', reason = 'BadDeviceToken', next_attempt_at = NULL WHERE notification_id = $1 AND status = 'pending'`,
        [ids.sent],
      );
    }
    // The API's own trace is unchanged: no dashboard field in it.
    const api = await ctx.http().get(`/api/v1/notifications/${ids.sent}/deliveries`).set(bearer(tenant.token)).expect(200);
    expect(Object.keys(api.body.data[0])).not.toContain('localization');
  });

  it('sends and cancels as documented', async () => {
    const app = `/admin/api/apps/${tenant.appId}`;
    const sent = await expectAnswer(
      'post',
      '/admin/api/apps/{app}/notifications',
      post(`${app}/notifications`).send({ recipients: { user_ids: ['documented-user'] }, notification: { title: 'Test', body: 'From the dashboard' } }),
      202,
    );
    expect(sent.data).toMatchObject({ status: 'sending', cancelable: true, target: { kind: 'user_ids', users: 1, tags: null } });
    const canceled = await expectAnswer('post', '/admin/api/apps/{app}/notifications/{id}/cancel', post(`${app}/notifications/${ids.scheduled}/cancel`), 200);
    expect(canceled.data).toMatchObject({ status: 'canceled', cancelable: false, target: { kind: 'tags', users: null, tags: ['beta'] } });
    await expectAnswer('post', '/admin/api/apps/{app}/notifications/{id}/cancel', post(`${app}/notifications/${ids.sent}/cancel`), 409);
  });

  it('answers no-store to every request, unknown routes and refusals included (issue 57 item 6)', async () => {
    const app = `/admin/api/apps/${tenant.appId}`;
    const answers = [
      await get('/admin/api/overview'),
      await get(app),
      await ctx.http().get('/admin/api/apps'),
      await ctx.http().post(`${app}/notifications`).set('Cookie', cookie).send({}),
      await get('/admin/api/no-such-route'),
      await post('/admin/api/no-such-route'),
      await get(`${app}/notifications?limit=0`),
      await post(`${app}/notifications`).set('Content-Type', 'application/json').send('{"x":'),
    ];
    expect(answers.map((res) => [res.status, res.headers['cache-control']])).toEqual(
      [200, 200, 401, 403, 404, 404, 422, 400].map((status) => [status, 'no-store']),
    );
  });

  it('refuses as documented: 400, 401, 403, 404, 415, 422', async () => {
    const app = `/admin/api/apps/${tenant.appId}`;
    const refusals: [string, string, Test, number][] = [
      ['get', '/admin/api/overview', ctx.http().get('/admin/api/overview'), 401],
      ['post', '/admin/api/apps/{app}/notifications/{id}/cancel', ctx.http().post(`${app}/notifications/${ids.sent}/cancel`).set('Cookie', cookie), 403],
      ['get', '/admin/api/apps/{app}', get(`/admin/api/apps/${MISSING}`), 404],
      ['get', '/admin/api/apps/{app}/notifications/{id}', get(`${app}/notifications/${MISSING}`), 404],
      ['get', '/admin/api/apps/{app}/notifications', get(`${app}/notifications?limit=0`), 422],
      ['get', '/admin/api/apps/{app}/notifications/{id}/deliveries', get(`${app}/notifications/${ids.sent}/deliveries?status=lost`), 422],
      ['get', '/admin/api/apps/{app}/installations', get(`${app}/installations`), 422],
      [
        'post',
        '/admin/api/apps/{app}/installations/browse',
        post(`${app}/installations/browse`).send({ filter: { and: [{ field: 'platform', op: 'lt', value: 'ios' }] } }),
        422,
      ],
      ['post', '/admin/api/apps/{app}/notifications', post(`${app}/notifications`).send({ recipients: {} }), 422],
      ['post', '/admin/api/apps/{app}/notifications', post(`${app}/notifications`).set('Content-Type', 'application/json').send('{"x":'), 400],
      ['post', '/admin/api/apps/{app}/notifications', post(`${app}/notifications`).set('Content-Type', 'text/plain').send('x'), 415],
    ];
    for (const [method, path, request, status] of refusals) await expectAnswer(method, path, request, status);
    await expectAnswer('delete', '/admin/api/session', ctx.http().delete('/admin/api/session').set('Cookie', cookie).set('X-CSRF-Token', csrf), 204);
  });
});
