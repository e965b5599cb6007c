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

  it('answers 401 with a Basic challenge without credentials or with wrong ones', async () => {
    for (const headers of [{}, basic(USER, 'wrong-password-here'), basic('someone', PASSWORD), { Authorization: 'Bearer x' }, { Authorization: 'Basic !!!' }]) {
      const res = await ctx.http().get('/admin/queues').set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm=/);
    }
  });

  it('an API token does not open it', async () => {
    const { token } = await newApp(ctx);
    expect((await ctx.http().get('/admin/queues').set(bearer(token))).status).toBe(401);
  });

  it('serves the dashboard, and its API lists the fanout, deliver and webhook queues, with the right credentials', async () => {
    const page = await ctx.http().get('/admin/queues').set(basic(USER, PASSWORD));
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['x-powered-by']).toBeUndefined();
    const api = await ctx.http().get('/admin/queues/api/queues').set(basic(USER, PASSWORD));
    expect(api.status).toBe(200);
    expect(api.body.queues.map((queue: { name: string }) => queue.name).sort()).toEqual(['deliver', 'fanout', 'webhook']);
    // Below the dashboard's path, everything needs the credentials too.
    expect((await ctx.http().get('/admin/queues/api/queues')).status).toBe(401);
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
      const moduleRef = await Test.createTestingModule({ imports: [ApiModule] }).overrideProvider(EnvironmentVariables).useValue(config).compile();
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
