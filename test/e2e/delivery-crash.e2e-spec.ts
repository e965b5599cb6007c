import { ApiModule } from '../../src/app.module';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, TestTenant } from '../support/factories';
import { assertBuilt, ChildEnv, killAllServices, serviceEnv, ServiceProcess } from '../support/processes';
import { acceptedPerAddress, configureProviders, FakeProviders, seedInstallations, startFakeProviders } from '../support/providers';
import { waitFor } from '../support/wait-for';

const COUNT = 4000;

/**
 * docs/api.md 6: a worker killed with SIGKILL in the middle of a send, then restarted, completes it;
 * only the messages in flight at the kill may be sent twice, and those carry the same collapse id.
 * The worker is the built service in APP_MODE=worker, a separate process, as in production.
 */
describe('a worker killed mid-send', () => {
  let fakes: FakeProviders;
  beforeAll(async () => {
    assertBuilt();
    fakes = await startFakeProviders();
    // Slow providers keep many messages in flight when the kill comes.
    fakes.apns.delayMs = 30;
    fakes.fcm.delayMs = 30;
    fakes.web.delayMs = 30;
  });
  // The worker processes use the app's database: they go first (hooks run in declaration order).
  afterAll(() => killAllServices());
  const ctx = useTestApp(() => ({ module: ApiModule, env: fakes.env }));
  afterAll(() => fakes?.stop());
  let tenant: TestTenant;
  let workerEnv: ChildEnv;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    await configureProviders(ctx, tenant.appId, fakes);
    workerEnv = serviceEnv(ctx, {
      ...fakes.env,
      APP_MODE: 'worker',
      NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? `${__dirname}/../fakes/certs/ca.pem`,
      DELIVERY_BATCH_SIZE: '50',
      DELIVERY_CONCURRENCY: '20',
      WORKER_CONCURRENCY: '4',
      // A dead worker's jobs are taken over after ~2 s instead of 30 s.
      QUEUE_LOCK_MS: '2000',
      LOG_LEVEL: 'info',
    });
  });

  it('completes after a restart, re-sending only what was in flight', async () => {
    const seeded = await seedInstallations(ctx, tenant.appId, fakes, COUNT);
    const first = ServiceProcess.start(workerEnv);
    await first.waitForOutput(/Started in worker mode/);

    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ recipients: { user_ids: seeded.map((s) => s.userId) }, notification: { title: 'Crash', body: 'Test' } })
      .expect(202);
    const id = res.body.data.id;

    await waitFor(async () => fakes.apns.requests.length + fakes.fcm.requests.length + fakes.web.requests.length >= 200, 'deliveries to start');
    first.child.kill('SIGKILL');
    await first.exited;
    const [atKill] = await ctx.db.query(`SELECT fanned_out_at, stat_installations FROM notifications WHERE id = $1`, [id]);
    const inFlight: { address: string }[] = await ctx.db.query(
      `SELECT COALESCE(i.push_token, i.web_push_subscription ->> 'endpoint') AS address
       FROM deliveries d JOIN installations i ON i.id = d.installation_id
       WHERE d.notification_id = $1 AND d.status = 'sending'`,
      [id],
    );
    const acceptedBefore = acceptedPerAddress(fakes);
    expect(acceptedBefore.size).toBeLessThan(COUNT);

    const second = ServiceProcess.start(workerEnv);
    await second.waitForOutput(/Started in worker mode/);
    const done = await waitFor(async () => {
      const [n] = await ctx.db.query(`SELECT * FROM notifications WHERE id = $1 AND completed_at IS NOT NULL`, [id]);
      return n;
    }, 'the send to complete after the restart', 60_000, 100);
    await second.stop('SIGTERM');

    expect(done).toMatchObject({ stat_users: COUNT, stat_installations: COUNT, stat_accepted: COUNT, stat_failed: 0, stat_skipped: 0 });
    const accepted = acceptedPerAddress(fakes);
    for (const s of seeded) expect(accepted.get(s.address) ?? 0).toBeGreaterThanOrEqual(1);
    const duplicated = [...accepted.entries()].filter(([, n]) => n > 1).map(([address]) => address);
    const inFlightSet = new Set(inFlight.map((r) => r.address));
    // Only messages that were in flight at the kill may have gone out twice.
    for (const address of duplicated) expect(inFlightSet.has(address)).toBe(true);
    // Every message of the notification carries its collapse identifier, duplicates included.
    for (const r of fakes.apns.requests) expect(r.headers['apns-collapse-id']).toBe(id);
    for (const r of fakes.fcm.requests) expect((r.message as { android: { collapse_key: string } }).android.collapse_key).toBe(id);
    process.stdout.write(
      `\nkilled with ${acceptedBefore.size}/${COUNT} delivered, fan-out ${atKill.fanned_out_at ? 'finished' : `at ${atKill.stat_installations} installations`}, ` +
        `${inFlight.length} in flight, ${duplicated.length} sent twice\n`,
    );
  }, 120_000);
});
