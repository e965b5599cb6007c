import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OperatorsService } from '../../src/operators/operators.service';
import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp } from '../support/factories';
import { type OpenApiDocument } from '../support/openapi-schemas';

const ADMIN = { user: 'ops', password: 'a-long-dashboard-password' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const DOCUMENT = JSON.parse(readFileSync(resolve(__dirname, '../../clients/admin/openapi.json'), 'utf8')) as OpenApiDocument & {
  paths: Record<string, Record<string, { 'x-role'?: string; 'x-role-scope'?: string; security?: unknown[]; parameters?: { name: string }[] }>>;
};
const MISSING = '0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10';
const RANK = ['viewer', 'editor', 'owner'];
/** Not changes: an operator's own sessions (log out, revoke one), and reads sent as POST for their body. */
/** Routes a viewer may call that change nothing: logging out, ending their own session, and reads sent as POST (a body too rich for a query). */
const NOT_CHANGES = [
  'DELETE /admin/api/session',
  'DELETE /admin/api/sessions/{id}',
  'POST /admin/api/apps/{app}/installations/browse',
  'POST /admin/api/apps/{app}/audiences/count',
  'POST /admin/api/apps/{app}/notifications/preview',
];

type Grants = { app_id: string | null; role: 'viewer' | 'editor' | 'owner' }[];

/**
 * Issue 54 item 3 (docs/api.md#roles): every route of the dashboard's OpenAPI document
 * (clients/admin/openapi.json, so routes other features add are walked too) is called by an
 * operator of each role, for every app and for one app only; the server answers 403 exactly
 * when the route's `x-role` is not held where it applies (its `{app}`, every app, or with
 * `x-role-scope: some-app` any one app). A viewer changes nothing.
 */
describe('roles on every dashboard route (issue 54)', () => {
  const ctx = useTestApp({ env: { ADMIN_USER: ADMIN.user, ADMIN_PASSWORD: ADMIN.password } });
  const operations = Object.entries(DOCUMENT.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => operation.security !== undefined)
      .map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, method, path, operation })),
  );
  let appA: string;
  let appB: string;
  const tokens: Record<string, string> = {};
  const sessions: Record<string, { cookie: string; csrf: string; grants: Grants }> = {};

  const logIn = async (email: string, password: string) => {
    const res = await ctx.http().post('/admin/api/session').set('Authorization', basic(email, password)).expect(200);
    return { cookie: (res.headers['set-cookie'] as unknown as string[])[0].split(';')[0], csrf: res.body.data.csrf_token as string };
  };

  beforeAll(async () => {
    const a = await newApp(ctx, 'Shop A');
    const b = await newApp(ctx, 'Shop B');
    [appA, appB] = [a.appId, b.appId];
    [tokens[appA], tokens[appB]] = [a.token, b.token];
    const operators = ctx.get(OperatorsService);
    const people: Record<string, Grants> = {
      viewer: [{ app_id: null, role: 'viewer' }],
      editor: [{ app_id: null, role: 'editor' }],
      owner: [{ app_id: null, role: 'owner' }],
      'editor of A': [{ app_id: appA, role: 'editor' }],
      'owner of A, viewer of all': [
        { app_id: null, role: 'viewer' },
        { app_id: appA, role: 'owner' },
      ],
    };
    for (const [name, grants] of Object.entries(people)) {
      const email = `${name.replace(/[^a-z]+/g, '-')}@example.com`;
      const { invitation } = await operators.create(email, grants);
      await operators.acceptInvitation(invitation.link.split('#')[1], 'a password for roles');
      sessions[name] = { ...(await logIn(email, 'a password for roles')), grants };
    }
  });

  const allowed = (grants: Grants, role: string, scope: string | undefined, app: string | null) => {
    const holds = (g: Grants[number]) => RANK.indexOf(g.role) >= RANK.indexOf(role);
    if (app !== null) return grants.some((g) => (g.app_id === null || g.app_id === app) && holds(g));
    if (scope === 'some-app') return grants.some(holds);
    return grants.some((g) => g.app_id === null && holds(g));
  };

  const call = (name: string, method: string, url: string) => {
    const { cookie, csrf } = sessions[name];
    const req = ctx.http()[method as 'get'](url).set('Cookie', cookie);
    return method === 'get' ? req : req.set('X-CSRF-Token', csrf).send({});
  };

  it('documents a role for every route with a session, and owner for every route about credentials, tokens or operators', () => {
    expect(operations.length).toBeGreaterThanOrEqual(20);
    for (const { route, operation } of operations) {
      expect({ route, role: RANK.includes(operation['x-role'] ?? '') }).toEqual({ route, role: true });
      if (/credential|token|operator/.test(route)) expect({ route, role: operation['x-role'] }).toEqual({ route, role: 'owner' });
    }
  });

  it('answers 403 exactly when the role is not held, for each role, on its app and another', async () => {
    const seen: string[] = [];
    // The session's own end last: it ends the session the walk uses.
    const ordered = [...operations].sort((a, b) => Number(a.route === 'DELETE /admin/api/session') - Number(b.route === 'DELETE /admin/api/session'));
    for (const name of Object.keys(sessions)) {
      for (const { route, method, path, operation } of ordered) {
        if (route === 'DELETE /admin/api/session') continue;
        for (const app of path.includes('{app}') ? [appA, appB] : [null]) {
          const url = path
            .replace('{app}', app ?? '')
            .replace('{id}', MISSING)
            .replace('{key}', 'roles-walk')
            .replace('{user}', 'user-1')
            .replace('{domain}', 'walk.example.org')
            .replace(/\{[a-z_]+\}/g, MISSING);
          const res = await call(name, method, url);
          const expected = allowed(sessions[name].grants, operation['x-role']!, operation['x-role-scope'], app) ? 'not 403' : 403;
          const where = `${name}: ${route}${app === appB ? ' (app B)' : ''}`;
          expect({ where, status: res.status === 403 ? 403 : res.status === 401 ? 401 : 'not 403' }).toEqual({ where, status: expected });
          seen.push(route);
        }
      }
    }
    expect(new Set(seen).size).toBe(operations.length - 1);
  });

  it('lets a viewer change nothing: every route but reads and their own sessions answers 403', async () => {
    for (const { route, method, path } of operations) {
      if (method === 'get' || NOT_CHANGES.includes(route)) continue;
      const url = path.replace('{app}', appA).replace(/\{[a-z_]+\}/g, MISSING);
      const res = await call('viewer', method, url);
      expect({ route, status: res.status }).toEqual({ route, status: 403 });
    }
  });

  it("shows an operator of some apps the overview of their apps only, without every app's queues", async () => {
    // A send in each app, with what the worker would have counted (3 accepted in A, 5 in B), and a webhook of B given up.
    for (const [app, accepted] of [
      [appA, 3],
      [appB, 5],
    ] as const) {
      const sent = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tokens[app]))
        .send({ recipients: { tags: ['overview'] }, notification: { title: 'T', body: 'b' } })
        .expect(202);
      await ctx.db.query(`INSERT INTO delivery_minutes (notification_id, minute, outcome, count) VALUES ($1, date_trunc('minute', now()), 'accepted', $2)`, [
        sent.body.data.id,
        accepted,
      ]);
      if (app === appB) {
        const webhook = await ctx.get(WebhooksService).create(appB, 'https://shop-b.example.com/hooks', 'notification.completed');
        await ctx.db.query(
          `INSERT INTO webhook_messages (webhook_id, type, subject_id, status, attempts, last_error, finished_at)
           VALUES ($1, 'notification.completed', $2, 'failed', 5, 'HTTP 500', now())`,
          [webhook.id, sent.body.data.id],
        );
      }
    }
    const accepted = (body: { data: { minutes: { accepted: number }[] } }) => body.data.minutes.reduce((sum, m) => sum + m.accepted, 0);

    const mine = (await call('editor of A', 'get', '/admin/api/overview').expect(200)).body;
    expect({ every_app: mine.data.every_app, queues: mine.data.queues, accepted: accepted(mine), failed: mine.data.webhooks.failed }).toEqual({
      every_app: false,
      queues: null,
      accepted: 3,
      failed: 0,
    });
    const all = (await call('viewer', 'get', '/admin/api/overview').expect(200)).body;
    expect({ every_app: all.data.every_app, accepted: accepted(all), failed: all.data.webhooks.failed, recent: all.data.webhooks.recent[0].app_id }).toEqual({
      every_app: true,
      accepted: 8,
      failed: 1,
      recent: appB,
    });
  });

  it("lists to a one-app operator only that app's apps, and logs each role out", async () => {
    const apps = await call('editor of A', 'get', '/admin/api/apps').expect(200);
    expect(apps.body.data.map((a: { id: string }) => a.id)).toEqual([appA]);
    const all = await call('viewer', 'get', '/admin/api/apps').expect(200);
    expect(all.body.data.map((a: { id: string }) => a.id).sort()).toEqual([appA, appB].sort());
    for (const name of Object.keys(sessions)) {
      await call(name, 'delete', '/admin/api/session').expect(204);
      await call(name, 'get', '/admin/api/apps').expect(401);
    }
  });
});
