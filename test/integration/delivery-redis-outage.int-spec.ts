import { AllModule } from '../../src/app.module';
import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, newApp, newInstallation, TestTenant } from '../support/factories';
import { deleteRedisPrefix, TEST_REDIS_URL } from '../support/services';
import { configureProviders, FakeProviders, startFakeProviders } from '../support/providers';
import { TcpProxy } from '../support/tcp-proxy';
import { retentionPartitionsMade } from '../support/partitions';
import { waitFor } from '../support/wait-for';

/**
 * docs/api.md#delivery: a notification accepted while Redis is unreachable is still delivered once Redis is
 * back. The service reaches Redis through a proxy the test can cut and restore.
 */
describe('Redis unavailable at send time', () => {
  let fakes: FakeProviders;
  let proxy: TcpProxy;
  let port: number;
  beforeAll(async () => {
    fakes = await startFakeProviders();
    const redis = new URL(TEST_REDIS_URL);
    proxy = new TcpProxy(redis.hostname, Number(redis.port || 6379));
    port = await proxy.start();
  });
  // Redis must be reachable again while the app closes (declared first, so it runs first).
  afterAll(() => proxy?.start().catch(() => undefined));
  const ctx = useTestApp(() => ({ module: AllModule, env: { ...fakes.env, REDIS_URL: `redis://127.0.0.1:${port}` } }));
  afterAll(async () => {
    await proxy?.cut();
    await fakes?.stop();
  });
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    await configureProviders(ctx, tenant.appId, fakes);
    // The send below is a small send (docs/api.md#small-sends): not beside retention's start-up DDL.
    await retentionPartitionsMade(ctx);
  });

  it('accepts the send (202), then delivers it after Redis returns', async () => {
    const inst = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: 'outage-user' });
    const [{ push_token: token }] = await ctx.db.query(`SELECT push_token FROM installations WHERE id = $1`, [inst.id]);

    await proxy.cut();
    const started = Date.now();
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ recipients: { user_ids: ['outage-user'] }, notification: { title: 'Still', body: 'Delivered' } });
    expect(res.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(5_000);
    const id = res.body.data.id;
    // A small send (docs/api.md#small-sends): its delivery is written, waiting; no job could be queued, so nothing finished it.
    const [stored] = await ctx.db.query(
      `SELECT fanned_out_at, (SELECT array_agg(d.status) FROM deliveries d WHERE d.notification_id = n.id) AS statuses FROM notifications n WHERE id = $1`,
      [id],
    );
    expect(stored).toEqual({ fanned_out_at: null, statuses: ['pending'] });

    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fakes.apns.requests).toHaveLength(0);
    await proxy.start();

    const done = await waitFor(
      async () => {
        const n = (await ctx.http().get(`/api/v1/notifications/${id}`).set(bearer(tenant.token))).body.data;
        return n.completed_at ? n : null;
      },
      'delivery after Redis returns',
      30_000,
      100,
    );
    expect(done.statistics).toMatchObject({ installations: 1, accepted: 1 });
    expect(fakes.apns.requests.filter((r) => r.token === token && r.status === 200)).toHaveLength(1);
  }, 45_000);

  it('after Redis loses every key (schedule included), a send whose job was lost is still delivered', async () => {
    const inst = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: 'wiped-user' });
    const [{ push_token: token }] = await ctx.db.query(`SELECT push_token FROM installations WHERE id = $1`, [inst.id]);

    // Accepted while Redis is away, so no job holds it; then Redis comes back empty. The sweeper
    // leaves a send alone for its first 5 seconds, so the wipe comes before any sweep could take it.
    await proxy.cut();
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ recipients: { user_ids: ['wiped-user'] }, notification: { title: 'After', body: 'A flush' } });
    expect(res.status).toBe(202);
    await proxy.start();
    await deleteRedisPrefix(ctx.queuePrefix);

    const done = await waitFor(
      async () => {
        const n = (await ctx.http().get(`/api/v1/notifications/${res.body.data.id}`).set(bearer(tenant.token))).body.data;
        return n.completed_at ? n : null;
      },
      'delivery after Redis lost its data',
      30_000,
      100,
    );
    expect(done.statistics).toMatchObject({ installations: 1, accepted: 1 });
    expect(fakes.apns.requests.filter((r) => r.token === token && r.status === 200)).toHaveLength(1);
  }, 45_000);
});
