import { apnsToken, fcmToken, newApp, newInstallation, TestTenant } from '../support/factories';
import { notificationRowCompleted, sendToUsers } from '../support/notifications';
import { freePort, lines, listeningPorts, ServiceProcess } from '../support/processes';
import { sample, scrape } from '../support/prometheus';
import { configureProviders } from '../support/providers';
import { fakeProvidersWorkerEnv, useApiWithFakeProviders } from '../support/use-api-with-fake-providers';
import { waitForQueues } from '../support/wait-for-queues';

jest.setTimeout(60_000);

/**
 * Issue #4.2 across processes, as deployed: an API app and the built service in APP_MODE=worker,
 * each with its own METRICS_PORT. A send moves the API's counters and, once the worker has
 * delivered it through the loopback providers, the worker's delivery, latency and fan-out series.
 */
describe('metrics move with a send: the api and a worker process each expose METRICS_PORT', () => {
  let apiPort: number;
  let workerPort: number;
  beforeAll(async () => {
    apiPort = await freePort();
    workerPort = await freePort();
  });
  const stack = useApiWithFakeProviders(() => ({ METRICS_PORT: String(apiPort) }));
  const { ctx } = stack;
  let tenant: TestTenant;
  let worker: ServiceProcess;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    await configureProviders(ctx, tenant.appId, stack.fakes);
    worker = ServiceProcess.start(fakeProvidersWorkerEnv(ctx, stack.fakes, { PORT: String(await freePort()), METRICS_PORT: String(workerPort) }));
    await worker.waitForOutput(/Started in worker mode/);
  });

  it('the worker serves /metrics on METRICS_PORT, its only listener, with the default Node.js metrics', async () => {
    const { status, text } = await scrape(workerPort);
    expect(status).toBe(200);
    expect(text).toContain('# TYPE nodejs_heap_size_used_bytes gauge');
    expect(text).toContain('# TYPE pns_deliveries_total counter');
    const ports = listeningPorts(worker.pid);
    if (ports !== null) expect(ports).toEqual([workerPort]);
  });

  it('after a send: accepted and fanned out on the api (a small send); deliveries by provider and outcome, provider latency on the worker', async () => {
    const user = (name: string) => `metrics-${name}`;
    const ios = async (name: string) => {
      const token = apnsToken();
      await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: token, user_id: user(name) });
      return token;
    };
    await ios('accepted');
    await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user('accepted') });
    await newInstallation(ctx, tenant.token, {
      platform: 'web',
      push_token: undefined,
      web_push_subscription: stack.fakes.web.createSubscription(),
      user_id: user('accepted'),
    });
    stack.fakes.apns.script(await ios('retried'), [{ status: 503, reason: 'ServiceUnavailable' }]);
    stack.fakes.apns.script(await ios('invalidated'), [{ status: 410, reason: 'Unregistered' }]);
    stack.fakes.apns.script(await ios('failed'), [{ status: 400, reason: 'PayloadTooLarge' }]);

    const before = { api: (await scrape(apiPort)).text, worker: (await scrape(workerPort)).text };
    const id = await sendToUsers(ctx, tenant.token, ['accepted', 'retried', 'invalidated', 'failed'].map(user), { title: 'Hi', body: 'Measured' });
    const done = await notificationRowCompleted(ctx, id, 'the worker to deliver the send');
    expect(done).toMatchObject({ stat_installations: 6, stat_accepted: 4, stat_failed: 2 });
    // The retried delivery's job may still be ending in the worker, recording its outcome.
    await waitForQueues(ctx);
    const after = { api: (await scrape(apiPort)).text, worker: (await scrape(workerPort)).text };
    const moved = (where: 'api' | 'worker', name: string, labels: Record<string, string> = {}) =>
      (sample(after[where], name, labels) ?? 0) - (sample(before[where], name, labels) ?? 0);

    expect(moved('api', 'pns_notifications_accepted_total')).toBe(1);
    expect(moved('api', 'pns_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/notifications', status: '202' })).toBe(1);

    const deliveries = (provider: string, outcome: string) => moved('worker', 'pns_deliveries_total', { provider, outcome });
    expect({
      apns: {
        accepted: deliveries('apns', 'accepted'),
        retried: deliveries('apns', 'retried'),
        invalidated: deliveries('apns', 'invalidated'),
        failed: deliveries('apns', 'failed'),
      },
      fcm: deliveries('fcm', 'accepted'),
      web_push: deliveries('web_push', 'accepted'),
    }).toEqual({ apns: { accepted: 2, retried: 1, invalidated: 1, failed: 1 }, fcm: 1, web_push: 1 });
    // One observation per provider request: the retried token was asked twice.
    expect({
      apns: moved('worker', 'pns_provider_request_duration_seconds_count', { provider: 'apns' }),
      fcm: moved('worker', 'pns_provider_request_duration_seconds_count', { provider: 'fcm' }),
      web_push: moved('worker', 'pns_provider_request_duration_seconds_count', { provider: 'web_push' }),
    }).toEqual({ apns: 5, fcm: 1, web_push: 1 });
    // A small send (docs/api.md#small-sends): its fan-out is timed by the api that ran it, once.
    expect(moved('api', 'pns_fanout_duration_seconds_count')).toBe(1);
    expect(moved('worker', 'pns_fanout_duration_seconds_count')).toBe(0);
    expect(moved('worker', 'pns_provider_request_duration_seconds_sum', { provider: 'apns' })).toBeGreaterThan(0);
    // Recorded where the work happened: the api process delivers nothing, the worker accepts nothing.
    expect(sample(after.api, 'pns_deliveries_total', { provider: 'apns', outcome: 'accepted' })).toBeUndefined();
    expect(sample(after.worker, 'pns_notifications_accepted_total')).toBe(0);
  });

  it("the worker's log is JSON lines carrying no push token", async () => {
    const tokens: { push_token: string | null }[] = await ctx.db.query(`SELECT push_token FROM installations WHERE push_token IS NOT NULL`);
    expect(tokens.length).toBeGreaterThan(0);
    const output = lines(worker.stdout);
    expect(output.length).toBeGreaterThan(0);
    for (const line of output) expect(() => JSON.parse(line)).not.toThrow();
    for (const { push_token } of tokens) expect(worker.stdout + worker.stderr).not.toContain(push_token);
  });

  it('on SIGTERM the worker closes its metrics listener and exits 0', async () => {
    expect(await worker.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    await expect(fetch(`http://127.0.0.1:${workerPort}/metrics`)).rejects.toThrow();
  });
});
