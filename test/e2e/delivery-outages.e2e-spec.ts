import { ApiModule } from '../../src/app.module';
import { useTestApp } from '../support/create-test-app';
import { newApp, TestTenant } from '../support/factories';
import { notificationRowCompleted } from '../support/notifications';
import { assertBuilt, freePort, killAllServices, serviceEnv, ServiceProcess } from '../support/processes';
import { configureProviders, FakeProviders, seedInstallations, startFakeProviders } from '../support/providers';
import { ADMIN_DATABASE_URL, TEST_QUEUE_BACKEND, TEST_REDIS_URL } from '../support/services';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';

const COUNT = 3000;
const CUT_MS = 5000;

interface Answer {
  status: number;
  body: string;
  retryAfter: string | null;
}

/**
 * docs/api.md#delivery: PostgreSQL or Redis cut off for five seconds in the middle of a send. The built
 * `api` and `worker` reach both stores through TCP proxies the test cuts and restores; the test's
 * own connections do not go through them. The API answers 200/202 or 503 with a message, never
 * 500, and readiness says "not ready"; the worker pauses and resumes by itself, keeps the outcomes
 * it could not write and writes them once the database is back; the send completes with every
 * device reached, statistics exact, and few devices (in flight at the cut) reached twice. On
 * QUEUE_BACKEND=postgres (test/postgres-queues.txt) the database cut takes the queues with it.
 */
describe('stores cut off in the middle of a send', () => {
  let fakes: FakeProviders;
  let database: TcpProxy;
  let redis: TcpProxy;
  beforeAll(async () => {
    assertBuilt();
    fakes = await startFakeProviders();
    // Provider latency keeps requests in flight, and the send going, when the cut comes.
    fakes.apns.delayMs = 20;
    const pg = new URL(ADMIN_DATABASE_URL);
    database = new TcpProxy(pg.hostname, Number(pg.port || 5432));
    const r = new URL(TEST_REDIS_URL);
    redis = new TcpProxy(r.hostname, Number(r.port || 6379));
    await Promise.all([database.start(), redis.start()]);
  });
  // The services go first (hooks run in declaration order), while their stores are reachable.
  afterAll(async () => {
    await Promise.all([database?.start(), redis?.start()]);
    await killAllServices();
  });
  const ctx = useTestApp(() => ({ module: ApiModule, env: fakes.env }));
  afterAll(async () => {
    await Promise.all([database?.cut(), redis?.cut(), fakes?.stop()]);
  });
  let tenant: TestTenant;
  let apiPort: number;
  let worker: ServiceProcess;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    await configureProviders(ctx, tenant.appId, fakes);
    const proxied = new URL(ctx.databaseUrl);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(database.port);
    apiPort = await freePort();
    const env = serviceEnv(
      { databaseUrl: proxied.toString(), queuePrefix: ctx.queuePrefix },
      {
        ...fakes.env,
        REDIS_URL: `redis://127.0.0.1:${redis.port}`,
        NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? `${__dirname}/../fakes/certs/ca.pem`,
        WORKER_CONCURRENCY: '2',
        DELIVERY_CONCURRENCY: '50',
        // Longer than the send takes: completing it must not wait for the sweeper to reset rows.
        DELIVERY_STUCK_MS: '30000',
        LOG_LEVEL: 'info',
      },
    );
    const api = ServiceProcess.start({ ...env, APP_MODE: 'api', PORT: String(apiPort) });
    worker = ServiceProcess.start({ ...env, APP_MODE: 'worker' });
    await Promise.all([api.waitForHttp(apiPort, '/health/live', 50_000), worker.waitForOutput(/Started in worker mode/, 50_000)]);
  }, 60_000);

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${apiPort}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${tenant.token}`, 'Content-Type': 'application/json' },
      signal: AbortSignal.timeout(15_000),
    });

  /**
   * Sends to COUNT new iOS devices through the built API, cuts `proxy` once a fifth are reached,
   * polls the notification and readiness while it is cut, restores it after CUT_MS and waits
   * for the send to complete.
   */
  async function sendThroughCut(proxy: TcpProxy, prefix: string) {
    const seeded = await seedInstallations(ctx, tenant.appId, fakes, COUNT, prefix, 'ios');
    const addresses = new Set(seeded.map((s) => s.address));
    const sent = () => fakes.apns.requests.filter((r) => addresses.has(r.token));
    const res = await api('/api/v1/notifications', {
      method: 'POST',
      body: JSON.stringify({ recipients: { user_ids: seeded.map((s) => s.userId) }, notification: { title: 'Outage', body: prefix } }),
    });
    expect(res.status).toBe(202);
    const id: string = ((await res.json()) as { data: { id: string } }).data.id;

    await waitFor(async () => sent().length >= COUNT / 5, 'a fifth of the deliveries', 60_000, 10);
    await proxy.cut();
    const cutAt = Date.now();
    const answers: Answer[] = [];
    const readiness: number[] = [];
    let sentAfterOneSecond = -1;
    while (Date.now() - cutAt < CUT_MS) {
      const got = await api(`/api/v1/notifications/${id}`);
      answers.push({ status: got.status, body: await got.text(), retryAfter: got.headers.get('retry-after') });
      readiness.push((await fetch(`http://127.0.0.1:${apiPort}/health/ready`, { signal: AbortSignal.timeout(15_000) })).status);
      if (sentAfterOneSecond < 0 && Date.now() - cutAt >= 1000) sentAfterOneSecond = sent().length;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const sentAtRestore = sent().length;
    await proxy.start();

    const done = await notificationRowCompleted(ctx, id, 'the send to complete after the cut', 90_000, 100);
    // And the API answers again.
    expect((await api(`/api/v1/notifications/${id}`)).status).toBe(200);

    const perAddress = new Map<string, number>();
    for (const r of sent()) if (r.status === 200) perAddress.set(r.token, (perAddress.get(r.token) ?? 0) + 1);
    const unreached = seeded.filter((s) => !perAddress.has(s.address)).length;
    const duplicates = [...perAddress.values()].filter((n) => n > 1).length;
    return { done, answers, readiness, sentAfterOneSecond, sentAtRestore, unreached, duplicates };
  }

  /** The send completed with exact statistics, every device reached, and at most 300 of them twice. */
  function expectEveryDeviceReached(result: Awaited<ReturnType<typeof sendThroughCut>>, store: string) {
    expect(result.done).toMatchObject({ stat_installations: COUNT, stat_accepted: COUNT, stat_failed: 0, stat_skipped: 0 });
    expect(result.unreached).toBe(0);
    console.log(`${store} cut for ${CUT_MS / 1000} s mid-send: ${result.duplicates} of ${COUNT} devices got the notification twice`);
    expect(result.duplicates).toBeLessThanOrEqual(300);
  }

  /** Never a 500: the notification (200), or 503 with the message and Retry-After. */
  function expectHonestAnswers(answers: Answer[]) {
    expect(answers.length).toBeGreaterThan(0);
    for (const answer of answers) {
      expect([200, 503]).toContain(answer.status);
      if (answer.status === 503) {
        expect(JSON.parse(answer.body)).toEqual({ message: 'Service Unavailable.' });
        expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      }
    }
  }

  it('PostgreSQL: 503s and "not ready" while cut, the worker pauses and resumes, every device reached, few twice', async () => {
    const result = await sendThroughCut(database, 'pg-outage');

    expectHonestAnswers(result.answers);
    expect(result.answers.some((a) => a.status === 503)).toBe(true);
    expect(result.readiness.every((status) => status === 503)).toBe(true);
    // The worker sent nothing more once its in-flight requests were answered, then resumed by itself.
    expect(result.sentAtRestore).toBe(result.sentAfterOneSecond);
    expect(worker.stdout + worker.stderr).toMatch(/Database unreachable while .*: delivery paused/);
    expect(worker.stdout + worker.stderr).toMatch(/Database reachable again after [\d.]+ s: delivery resumed/);
    expect(worker.alive).toBe(true);

    expectEveryDeviceReached(result, 'PostgreSQL');
  }, 150_000);

  // On QUEUE_BACKEND=postgres no process uses Redis: the PostgreSQL cut above is the queues' cut too.
  (TEST_QUEUE_BACKEND === 'redis' ? it : it.skip)(
    'Redis: the API never answers 500 and is "not ready" while cut; every device reached, few twice',
    async () => {
      const result = await sendThroughCut(redis, 'redis-outage');

      expectHonestAnswers(result.answers);
      expect(result.readiness.every((status) => status === 503)).toBe(true);
      expect(worker.alive).toBe(true);

      expectEveryDeviceReached(result, 'Redis');
    },
    150_000,
  );
});
