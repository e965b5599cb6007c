import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { configureHttpApp } from '../../src/app.factory';
import { ApiModule } from '../../src/app.module';
import { env, EnvironmentVariables } from '../../src/config/env';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp } from '../support/factories';

const USER = 'ops';
const PASSWORD = 'a-long-dashboard-password';
const basic = (user: string, password: string) => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

describe('queue dashboard at /admin/queues (issue #4.4)', () => {
  const ctx = useTestApp({ env: { ADMIN_USER: USER, ADMIN_PASSWORD: PASSWORD } });

  /** Logs in at the operator dashboard's door: its session cookie and CSRF token. */
  const login = async () => {
    const res = await ctx.http().post('/admin/api/session').set(basic(USER, PASSWORD)).expect(200);
    return { cookie: String(res.headers['set-cookie']).split(';')[0], csrf: res.body.data.csrf_token as string };
  };

  it('has no door of its own (issue 26 item 2): Basic credentials, right or wrong, and API tokens do not open it', async () => {
    const { token } = await newApp(ctx);
    for (const headers of [{}, basic(USER, PASSWORD), basic(USER, 'wrong-password-here'), bearer(token), { Authorization: 'Basic !!!' }]) {
      for (const path of ['/admin/queues/api/queues', '/admin/queues/api/redis/stats']) {
        const res = await ctx.http().get(path).set(headers);
        expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 401, body: { message: 'Unauthenticated.' } });
        expect(res.headers['www-authenticate']).toBeUndefined();
      }
    }
    // A person without a session who opens the page is sent to the dashboard's login.
    const page = await ctx.http().get('/admin/queues').set('Accept', 'text/html');
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/admin');
  });

  it('opens with the operator dashboard session: the page, on this origin only, and its API', async () => {
    const { cookie } = await login();
    const page = await ctx.http().get('/admin/queues').set('Cookie', cookie);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['x-powered-by']).toBeUndefined();
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'.*frame-ancestors 'none'/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    // Nothing from another host: no web fonts from outside (the CSP would block them anyway).
    expect(page.text).not.toMatch(/https?:\/\//);
    const api = await ctx.http().get('/admin/queues/api/queues').set('Cookie', cookie);
    expect(api.status).toBe(200);
    expect(api.body.queues.map((queue: { name: string }) => queue.name).sort()).toEqual(['deliver', 'deliver-small', 'fanout', 'webhook']);
    expect(api.headers['content-security-policy']).toMatch(/default-src 'self'/);
  });

  it("refuses every state-changing request without the session's CSRF token: a form on another site cannot add a job", async () => {
    const { cookie, csrf } = await login();
    const add = (headers: Record<string, string>) =>
      ctx.http().post('/admin/queues/api/queues/fanout/add').set(headers).type('form').send({ name: 'evil', data: '{}' });
    expect((await add({ Origin: 'https://evil.example' })).status).toBe(401);
    expect((await add({ Origin: 'https://evil.example', Cookie: cookie })).status).toBe(403);
    expect((await add({ Cookie: cookie, 'X-CSRF-Token': 'not-the-token' })).status).toBe(403);
    const resume = await ctx.http().put('/admin/queues/api/queues/resume').set({ Cookie: cookie, 'X-CSRF-Token': csrf });
    expect(resume.status).toBe(200);
  });

  it("shares the dashboard login's lockout: no second place to guess the password", async () => {
    // Another client address than the tests above would share: supertest's is always loopback, so
    // these failures lock it out; they come last in this block.
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push(
        (
          await ctx
            .http()
            .post('/admin/api/session')
            .set(basic(USER, `wrong-${i}-password`))
        ).status,
      );
    expect(statuses.at(-1)).toBe(429);
    expect((await ctx.http().post('/admin/api/session').set(basic(USER, PASSWORD))).status).toBe(429);
    expect((await ctx.http().get('/admin/queues/api/queues').set(basic(USER, PASSWORD))).status).toBe(401);
  });

  it('is not part of the API document', async () => {
    const doc = await ctx.http().get('/docs-json').expect(200);
    expect(Object.keys(doc.body.paths).some((path) => path.startsWith('/admin'))).toBe(false);
  });

  describe('without ADMIN_USER / ADMIN_PASSWORD', () => {
    let off: INestApplication;

    beforeAll(async () => {
      // The same api on the same database and Redis, configured without the dashboard credentials.
      const config = Object.assign(new EnvironmentVariables(), env(), { ADMIN_USER: undefined, ADMIN_PASSWORD: undefined });
      const moduleRef = await Test.createTestingModule({ imports: [ApiModule] })
        .overrideProvider(EnvironmentVariables)
        .useValue(config)
        .compile();
      off = configureHttpApp(moduleRef.createNestApplication({ bodyParser: false, logger: false }));
      await off.init();
    });
    afterAll(() => off?.close());

    it('is off: its paths answer 404 like an unknown route, whatever the credentials', async () => {
      for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
        for (const headers of [{}, basic(USER, PASSWORD)]) {
          const res = await request(off.getHttpServer()).get(path).set(headers);
          expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: { message: 'Not Found' } });
          expect(res.headers['www-authenticate']).toBeUndefined();
        }
      }
    });
  });
});
