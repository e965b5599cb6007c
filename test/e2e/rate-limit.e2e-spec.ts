import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import request from 'supertest';
import { configureHttpApp } from '../../src/app.factory';
import { ApiModule } from '../../src/app.module';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, newToken, TestTenant } from '../support/factories';
import { createTokenWithCli, freePort, serviceEnv, ServiceProcess } from '../support/processes';
import { TEST_REDIS_URL } from '../support/services';
import { useBuiltServices } from '../support/use-built-services';

const LIMIT = 5;

/**
 * Two API processes sharing one Redis and one database: here two Nest apps in one test file,
 * built from the same module with the same configuration (QUEUE_PREFIX included), as two
 * `APP_MODE=api` containers would be.
 */
describe('rate limit per token across API instances (issue #4.5)', () => {
  let second: INestApplication;
  // Declared before useTestApp, so it runs first: the second instance closes before the database goes.
  afterAll(() => second?.close());
  const ctx = useTestApp({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  let tenant: TestTenant;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ApiModule] }).compile();
    second = configureHttpApp(moduleRef.createNestApplication({ bodyParser: false, logger: false }));
    await second.init();
    tenant = await newApp(ctx);
  });

  const one = () => ctx.http();
  const two = () => request(second.getHttpServer());

  it('counts one budget per token over both instances and all routes, then answers 429 with Retry-After', async () => {
    const token = await newToken(ctx, tenant.appId, ['*']);
    const calls = [
      () => one().get('/api/v1/notifications').set(bearer(token)),
      () => two().get('/api/v1/notifications').set(bearer(token)),
      () => one().get('/api/v1/installations/nobody').set(bearer(token)),
      () => two().get('/api/v1/notifications').set(bearer(token)),
      () => one().get('/api/v1/notifications').set(bearer(token)),
    ];
    for (const [index, call] of calls.entries()) {
      const res = await call();
      expect({ index, status: res.status }).toEqual({ index, status: index === 2 ? 404 : 200 });
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - index - 1));
    }
    for (const app of [two, one]) {
      const res = await app().get('/api/v1/notifications').set(bearer(token));
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ message: 'Too Many Attempts.' });
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
  });

  it('keeps separate budgets for separate tokens', async () => {
    const busy = await newToken(ctx, tenant.appId, ['*']);
    const quiet = await newToken(ctx, tenant.appId, ['*']);
    for (let i = 0; i <= LIMIT; i++) await one().get('/api/v1/notifications').set(bearer(busy));
    expect((await two().get('/api/v1/notifications').set(bearer(busy))).status).toBe(429);
    expect((await two().get('/api/v1/notifications').set(bearer(quiet))).status).toBe(200);
  });

  it('does not limit health checks or the docs, and answers 401 (not 429) without a token', async () => {
    for (let i = 0; i < LIMIT * 2; i++) {
      expect((await one().get('/health/live')).status).toBe(200);
      expect((await two().get('/docs-json')).status).toBe(200);
      expect((await one().get('/api/v1/notifications')).status).toBe(401);
    }
  });

  it('keeps the counters under QUEUE_PREFIX in Redis', async () => {
    const token = await newToken(ctx, tenant.appId, ['*']);
    await one().get('/api/v1/notifications').set(bearer(token)).expect(200);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const keys = await redis.keys(`${ctx.queuePrefix}:ratelimit:*`);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((key) => !key.includes(token))).toBe(true);
    } finally {
      redis.disconnect();
    }
  });
});

/** The same, with two built `APP_MODE=api` processes, as two containers behind a load balancer would run. */
describe('rate limit shared by two api processes (issue #4.5)', () => {
  const PROCESS_LIMIT = 3;
  const stores = useBuiltServices();
  let token: string;
  let ports: number[];

  beforeAll(async () => {
    token = await createTokenWithCli(stores.database.url, 'Limited');
    ports = [await freePort(), await freePort()];
    const services = ports.map((port) =>
      ServiceProcess.start(
        serviceEnv(
          { databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix },
          { APP_MODE: 'api', PORT: String(port), RATE_LIMIT_PER_MINUTE: String(PROCESS_LIMIT) },
        ),
      ),
    );
    await Promise.all(services.map((service, i) => service.waitForHttp(ports[i])));
  }, 60_000);

  it('lets RATE_LIMIT_PER_MINUTE requests through over both processes, then both answer 429 with Retry-After', async () => {
    const get = (port: number) => fetch(`http://127.0.0.1:${port}/api/v1/notifications`, { headers: { Authorization: `Bearer ${token}` } });
    const statuses: number[] = [];
    for (let i = 0; i < PROCESS_LIMIT; i++) statuses.push((await get(ports[i % 2])).status);
    expect(statuses).toEqual(Array(PROCESS_LIMIT).fill(200));
    for (const port of ports) {
      const res = await get(port);
      expect(res.status).toBe(429);
      expect(await res.json()).toEqual({ message: 'Too Many Attempts.' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Health is never limited.
    for (const port of ports) expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
  });
});
