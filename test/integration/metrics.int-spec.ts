import { Test } from '@nestjs/testing';
import { CoreModule } from '../../src/worker.module';
import { env, EnvironmentVariables } from '../../src/config/env';
import { freePort } from '../support/processes';
import { useTestApp } from '../support/create-test-app';
import { bearer, installationId, newApp, TestTenant } from '../support/factories';
import { sample, scrape } from '../support/prometheus';

const SEND = { recipients: { user_ids: ['metrics-user'] }, notification: { title: 'Hi', body: 'Counted' } };

describe('Prometheus metrics on METRICS_PORT (issue #4.2)', () => {
  let port: number;
  const ctx = useTestApp(async () => {
    port = await freePort();
    return { env: { METRICS_PORT: String(port) } };
  });
  let tenant: TestTenant;
  let sends = 0;

  beforeAll(async () => {
    tenant = await newApp(ctx);
  });

  const send = async (headers: Record<string, string> = {}) => {
    const res = await ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).set(headers).send(SEND).expect(202);
    if (res.headers['idempotent-replayed'] !== 'true') sends++;
    return res;
  };

  it('serves the registry in the Prometheus text format, with the default Node.js metrics', async () => {
    const { status, type, text } = await scrape(port);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of ['process_cpu_user_seconds_total', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    for (const name of [
      'pns_http_request_duration_seconds',
      'pns_notifications_accepted_total',
      'pns_deliveries_total',
      'pns_provider_request_duration_seconds',
      'pns_fanout_duration_seconds',
      'pns_queue_jobs',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });

  it('counts accepted notifications once: an idempotent replay is not counted again', async () => {
    const before = sample((await scrape(port)).text, 'pns_notifications_accepted_total') ?? 0;
    await send();
    const key = { 'Idempotency-Key': `metrics-${installationId()}` };
    await send(key);
    const replay = await send(key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(sample((await scrape(port)).text, 'pns_notifications_accepted_total')).toBe(before + 2);
  });

  it('times HTTP requests by route pattern and status, never by raw URL', async () => {
    const raw = installationId();
    await ctx.http().get(`/api/v1/installations/${raw}`).set(bearer(tenant.token)).expect(404);
    await ctx.http().get(`/api/v1/installations/${raw}`).expect(401);
    await ctx.http().get(`/no/such/route/${raw}`).expect(404);
    const { text } = await scrape(port);
    const count = (labels: Record<string, string>) => sample(text, 'pns_http_request_duration_seconds_count', labels);
    expect(count({ method: 'POST', route: '/api/v1/notifications', status: '202' })).toBeGreaterThanOrEqual(3);
    expect(count({ method: 'GET', route: '/api/v1/installations/:installationId', status: '404' })).toBe(1);
    // Refused by the guard before the handler: measured all the same.
    expect(count({ method: 'GET', route: '/api/v1/installations/:installationId', status: '401' })).toBe(1);
    expect(count({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(text).not.toContain(raw);
    expect(sample(text, 'pns_http_request_duration_seconds_bucket', { route: '/api/v1/notifications', status: '202', le: '+Inf' })).toBeGreaterThanOrEqual(3);
  });

  it('reports queue depth by queue and state, read from BullMQ when scraped', async () => {
    const { text } = await scrape(port);
    // No worker runs in this API-only app, so every accepted send is still waiting for its fan-out.
    expect(sample(text, 'pns_queue_jobs', { queue: 'fanout', state: 'waiting' })).toBe(sends);
    for (const state of ['active', 'delayed', 'failed', 'completed']) {
      expect(sample(text, 'pns_queue_jobs', { queue: 'fanout', state })).toBe(0);
      expect(sample(text, 'pns_queue_jobs', { queue: 'deliver', state })).toBe(0);
    }
  });

  it('answers a liveness probe on the metrics port, and 404 elsewhere', async () => {
    const live = await fetch(`http://127.0.0.1:${port}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('a worker, which has no HTTP server, exposes metrics too, and closes the listener on shutdown', async () => {
    const workerPort = await freePort();
    const config = Object.assign(new EnvironmentVariables(), env(), { METRICS_PORT: workerPort });
    // CoreModule is what WorkerModule adds its processors to; the processors are not needed here.
    const worker = await Test.createTestingModule({ imports: [CoreModule] })
      .overrideProvider(EnvironmentVariables)
      .useValue(config)
      .compile();
    await worker.init();
    try {
      const { status, text } = await scrape(workerPort);
      expect(status).toBe(200);
      expect(text).toContain('# TYPE pns_deliveries_total counter');
      expect(sample(text, 'pns_queue_jobs', { queue: 'fanout', state: 'waiting' })).toBe(sends);
    } finally {
      await worker.close();
    }
    await expect(fetch(`http://127.0.0.1:${workerPort}/metrics`)).rejects.toThrow();
  });
});
