import { bearer, newApp, TestTenant } from '../support/factories';
import { notificationRowCompleted, readNotification } from '../support/notifications';
import { ChildEnv, ServiceProcess } from '../support/processes';
import { acceptedPerAddress, configureProviders, seedInstallations } from '../support/providers';
import { fakeProvidersWorkerEnv, useApiWithFakeProviders } from '../support/use-api-with-fake-providers';
import { waitFor } from '../support/wait-for';

const COUNT = 40;
/** A worker's start on a busy machine (2 cores shared by the test services): node alone takes seconds. */
const STARTS_WITHIN_MS = 50_000;

/**
 * docs/api.md#a-b-test-with-a-winner: the decision is due at a time stored in PostgreSQL, so a worker
 * SIGKILLed during the sample phase loses nothing. Its replacements, two at once, find the overdue
 * test in their sweeps (the delayed job still waits its five minutes) and decide it once: every
 * installation gets exactly one message. The time is moved, not waited for: the stored due time is
 * set in the past while no worker runs.
 */
describe('an A/B test whose worker is killed in its sample phase', () => {
  const stack = useApiWithFakeProviders();
  const { ctx } = stack;
  let tenant: TestTenant;
  let workerEnv: ChildEnv;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    await configureProviders(ctx, tenant.appId, stack.fakes);
    // Sweeps every second, and a dead worker's jobs are taken over after ~2 s instead of 30 s.
    workerEnv = fakeProvidersWorkerEnv(ctx, stack.fakes, { SWEEP_INTERVAL_MS: '1000', QUEUE_LOCK_MS: '2000' });
  });

  it('is decided once by the restarted workers, and the rest get the winner once', async () => {
    const seeded = await seedInstallations(ctx, tenant.appId, stack.fakes, COUNT, 'ab-crash');
    const first = ServiceProcess.start(workerEnv);
    await first.waitForOutput(/Started in worker mode/, STARTS_WITHIN_MS);

    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({
        recipients: { user_ids: seeded.map((s) => s.userId) },
        variants: [
          { key: 'a', weight: 50, notification: { title: 'A', body: 'Variant a' } },
          { key: 'b', weight: 50, notification: { title: 'B', body: 'Variant b' } },
        ],
        options: { ab_test: { sample_percent: 50, winner_after: '5m', metric: 'opened' } },
      })
      .expect(202);
    const id: string = res.body.data.id;

    // The sample is sent: fanned out, and none of its rows left to deliver.
    const sampleSize = await waitFor(async () => {
      const [n] = await ctx.db.query(
        `SELECT n.fanned_out_at,
           count(*) FILTER (WHERE d.variant IS NOT NULL)::int AS sample,
           count(*) FILTER (WHERE d.variant IS NOT NULL AND d.status IN ('pending', 'sending'))::int AS unsent
         FROM notifications n JOIN deliveries d ON d.notification_id = n.id WHERE n.id = $1 GROUP BY n.fanned_out_at`,
        [id],
      );
      return n?.fanned_out_at && n.unsent === 0 ? (n.sample as number) : null;
    }, 'the sample to be sent');
    expect(sampleSize).toBeGreaterThan(0);
    expect(sampleSize).toBeLessThan(COUNT);
    expect(acceptedPerAddress(stack.fakes).size).toBe(sampleSize);

    first.child.kill('SIGKILL');
    await first.exited;
    expect((await readNotification(ctx, tenant.token, id)).ab_test).toEqual({ phase: 'sample', winner: null, decided_at: null });
    // As if its five minutes had passed while no worker ran.
    await ctx.db.query(`UPDATE notifications SET ab_due_at = now() - interval '1 second' WHERE id = $1`, [id]);

    const replacements = [ServiceProcess.start(workerEnv), ServiceProcess.start(workerEnv)];
    await Promise.all(replacements.map((w) => w.waitForOutput(/Started in worker mode/, STARTS_WITHIN_MS)));
    await notificationRowCompleted(ctx, id, 'the winner to be sent after the restart', 60_000, 100);
    await Promise.all(replacements.map((w) => w.stop('SIGTERM')));

    const done = await readNotification(ctx, tenant.token, id);
    expect(done.ab_test).toMatchObject({ phase: 'done', winner: expect.stringMatching(/^[ab]$/), decided_at: expect.stringMatching(/Z$/) });
    expect(done.statistics).toMatchObject({ accepted: COUNT, failed: 0 });
    const accepted = acceptedPerAddress(stack.fakes);
    for (const s of seeded) expect(accepted.get(s.address)).toBe(1);
  }, 180_000);
});
