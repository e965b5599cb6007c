import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Response } from 'supertest';
import { parseEnv } from '../../src/config/env';
import { RetentionRepository } from '../../src/delivery/retention/retention.repository';
import { RetentionService } from '../../src/delivery/retention/retention.service';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, newToken, type TestTenant } from '../support/factories';
import { type OpenApiDocument, responseChecker } from '../support/openapi-schemas';

const ADMIN = { user: 'ops', password: 'a-long-dashboard-password' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const DOCUMENT = JSON.parse(readFileSync(resolve(__dirname, '../../clients/admin/openapi.json'), 'utf8')) as OpenApiDocument;
const PASSWORD = 'ana has a long password';

/**
 * Issue 54 items 1 and 5 (docs/api.md#operators, docs/api.md#audit-log): operators invited
 * by one-time link, their passwords, logins limited per account, sessions listed and revoked,
 * disabling; and the audit log of it all, in the dashboard and `GET /api/v1/audit-log`. Every
 * dashboard answer here is checked against clients/admin/openapi.json.
 */
describe('operator accounts and the audit log (issue 54)', () => {
  const ctx = useTestApp({ env: { ADMIN_USER: ADMIN.user, ADMIN_PASSWORD: ADMIN.password } });
  const check = responseChecker(DOCUMENT);
  let tenant: TestTenant;
  let owner: { cookie: string; csrf: string };

  const logIn = async (user: string, password: string) => {
    const res = await ctx.http().post('/admin/api/session').set('Authorization', basic(user, password)).set('User-Agent', 'jest');
    return {
      res,
      cookie: res.status === 200 ? (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0] : '',
      csrf: res.body?.data?.csrf_token as string,
    };
  };
  const documented = (res: Response, path: string, method: string) => {
    const problem = check(path, method, res.status, res.body, res.text ?? '');
    if (problem) throw new Error(`${method} ${path}: ${problem}`);
    return res;
  };
  const as = (session: { cookie: string; csrf: string }) => ({
    get: (url: string) => ctx.http().get(url).set('Cookie', session.cookie),
    post: (url: string) => ctx.http().post(url).set('Cookie', session.cookie).set('X-CSRF-Token', session.csrf),
    put: (url: string) => ctx.http().put(url).set('Cookie', session.cookie).set('X-CSRF-Token', session.csrf),
    delete: (url: string) => ctx.http().delete(url).set('Cookie', session.cookie).set('X-CSRF-Token', session.csrf),
  });

  beforeAll(async () => {
    tenant = await newApp(ctx, 'Audited shop');
    const login = await logIn(ADMIN.user, ADMIN.password);
    expect(login.res.status).toBe(200);
    owner = login;
  });

  it('invites an operator by one-time link; the link sets a password once, which then logs in with its role', async () => {
    const created = documented(
      await as(owner)
        .post('/admin/api/operators')
        .send({ email: 'Ana@Example.com', grants: [{ app_id: tenant.appId, role: 'editor' }] })
        .expect(201),
      '/admin/api/operators',
      'post',
    );
    expect(created.body.data).toMatchObject({ email: 'Ana@Example.com', grants: [{ app_id: tenant.appId, role: 'editor' }], password_set: false });
    const link: string = created.body.invitation.link;
    expect(link).toMatch(/^\/admin\/invitation#[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(created.body.data)).not.toContain('hash');
    // The same e-mail in another case is the same operator.
    await as(owner)
      .post('/admin/api/operators')
      .send({ email: 'ana@example.com', grants: [{ role: 'viewer' }] })
      .expect(422);

    const token = link.split('#')[1];
    await ctx.http().post('/admin/api/invitations/accept').send({ token, password: 'short' }).expect(422);
    const accepted = documented(
      await ctx.http().post('/admin/api/invitations/accept').send({ token, password: PASSWORD }).expect(200),
      '/admin/api/invitations/accept',
      'post',
    );
    expect(accepted.body.data.password_set).toBe(true);
    await ctx.http().post('/admin/api/invitations/accept').send({ token, password: PASSWORD }).expect(422);

    const ana = await logIn('ana@example.com', PASSWORD);
    expect(documented(ana.res, '/admin/api/session', 'post').body.data).toMatchObject({
      user: 'Ana@Example.com',
      grants: [{ app_id: tenant.appId, role: 'editor' }],
    });
    await as(ana).put(`/admin/api/apps/${tenant.appId}/topics/news`).send({ name: 'News', default: 'subscribed' }).expect(200);
    await as(ana).get('/admin/api/operators').expect(403);
  });

  it("lists an operator's sessions, revokes one at once, and ends them all when the operator is disabled", async () => {
    const first = await logIn('ana@example.com', PASSWORD);
    const second = await logIn('ana@example.com', PASSWORD);
    const list = documented(await as(first).get('/admin/api/sessions').expect(200), '/admin/api/sessions', 'get');
    const current = list.body.data.filter((s: { current: boolean }) => s.current);
    expect(current).toHaveLength(1);
    expect(list.body.data.length).toBeGreaterThanOrEqual(2);
    const secondId = list.body.data.find((s: { id: string; current: boolean }) => !s.current && s.id).id;
    // Revoking one of the other sessions: whichever it was, the list shrinks and its cookie is refused.
    await as(first).delete(`/admin/api/sessions/${secondId}`).expect(204);
    const after = (await as(first).get('/admin/api/sessions').expect(200)).body.data.map((s: { id: string }) => s.id);
    expect(after).not.toContain(secondId);
    await as(first).delete(`/admin/api/sessions/${secondId}`).expect(404);

    const operators = (await as(owner).get('/admin/api/operators').expect(200)).body.data;
    const ana = operators.find((o: { email: string }) => o.email === 'Ana@Example.com');
    documented(await as(owner).post(`/admin/api/operators/${ana.id}/disable`).expect(200), '/admin/api/operators/{id}/disable', 'post');
    await as(first).get('/admin/api/sessions').expect(401);
    await as(second).get('/admin/api/sessions').expect(401);
    expect((await logIn('ana@example.com', PASSWORD)).res.status).toBe(401);
  });

  // Per account and per address both (unit-tested apart in admin-sessions.service.spec.ts): here one address, so either stops the guessing.
  it("stops guessing an operator's password after 10 failures, then refuses even the right one", async () => {
    const created = await as(owner)
      .post('/admin/api/operators')
      .send({ email: 'guessed@example.com', grants: [{ role: 'viewer' }] })
      .expect(201);
    await ctx
      .http()
      .post('/admin/api/invitations/accept')
      .send({ token: created.body.invitation.link.split('#')[1], password: PASSWORD })
      .expect(200);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await logIn('guessed@example.com', `wrong guess ${i}`)).res.status);
    expect(statuses.slice(0, 9)).toEqual(Array(9).fill(401));
    expect(statuses[10]).toBe(429);
    const right = await logIn('guessed@example.com', PASSWORD);
    expect({ status: right.res.status, retryAfter: Number(right.res.headers['retry-after']) > 0 }).toEqual({ status: 429, retryAfter: true });
  });

  it('records every change with who, when, what and from where, never a secret; owners filter it; a token with audit:read reads its app', async () => {
    const page = documented(await as(owner).get('/admin/api/audit-log?limit=100').expect(200), '/admin/api/audit-log', 'get');
    const actions = page.body.data.map((e: { action: string }) => e.action);
    for (const action of ['session.login', 'operator.create', 'operator.accept', 'topic.put', 'session.revoke', 'operator.disable'])
      expect(actions).toContain(action);
    const topic = page.body.data.find((e: { action: string }) => e.action === 'topic.put');
    expect(topic).toMatchObject({ actor: { kind: 'operator', label: 'Ana@Example.com' }, app_id: tenant.appId, target: 'news', address: expect.any(String) });
    const text = JSON.stringify(page.body);
    for (const secret of [PASSWORD, ADMIN.password, owner.csrf, owner.cookie.split('=')[1]]) expect(text).not.toContain(secret);

    const filtered = await as(owner).get(`/admin/api/audit-log?action=topic.put&app_id=${tenant.appId}&actor=ana`).expect(200);
    expect(filtered.body.data.map((e: { target: string }) => e.target)).toEqual(['news']);
    const future = await as(owner)
      .get(`/admin/api/audit-log?from=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`)
      .expect(200);
    expect(future.body.data).toEqual([]);
    await as(owner).get('/admin/api/audit-log?action=nonsense').expect(422);
    const first = await as(owner).get('/admin/api/audit-log?limit=2').expect(200);
    const next = await as(owner).get(`/admin/api/audit-log?limit=2&cursor=${first.body.meta.next_cursor}`).expect(200);
    expect(Number(next.body.data[0].id)).toBeLessThan(Number(first.body.data[1].id));

    const reader = await newToken(ctx, tenant.appId, ['audit:read']);
    const api = await ctx.http().get('/api/v1/audit-log').set(bearer(reader)).expect(200);
    expect(api.body.data.length).toBeGreaterThan(0);
    expect(api.body.data.every((e: { app_id: string }) => e.app_id === tenant.appId)).toBe(true);
    await ctx
      .http()
      .get('/api/v1/audit-log')
      .set(bearer(await newToken(ctx, tenant.appId, ['notifications:read'])))
      .expect(403);
  });

  it('keeps audit entries for AUDIT_LOG_RETENTION_DAYS', async () => {
    // Ana's and the guessed account's acceptances, made old.
    await ctx.db.query(`UPDATE audit_log SET at = now() - interval '400 days' WHERE action = 'operator.accept'`);
    const retention = new RetentionService(new RetentionRepository(ctx.db), parseEnv({ ...process.env, RETENTION_DAYS: '0', AUDIT_LOG_RETENTION_DAYS: '365' }));
    const report = await retention.run();
    expect(report.auditEntriesDeleted).toBe(2);
    const left = await ctx.db.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'operator.accept'`);
    expect(left[0].n).toBe(0);
  });
});
