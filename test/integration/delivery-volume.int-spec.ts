import { bearer, newApp, TestTenant } from '../support/factories';
import { acceptedPerAddress, configureProviders, seedInstallations } from '../support/providers';
import { waitFor } from '../support/wait-for';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';

const COUNT = 5000;

describe(`a send to ${COUNT} installations`, () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    await configureProviders(ctx, tenant.appId, stack.fakes);
  });

  it('delivers exactly once to each installation', async () => {
    const seeded = await seedInstallations(ctx, tenant.appId, stack.fakes, COUNT);
    const started = Date.now();
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ recipients: { user_ids: seeded.map((s) => s.userId) }, notification: { title: 'Hi', body: 'Everyone' } })
      .expect(202);
    const done = await waitFor(async () => {
      const n = (await ctx.http().get(`/api/v1/notifications/${res.body.data.id}`).set(bearer(tenant.token))).body.data;
      return n.completed_at ? n : null;
    }, 'the send to complete', 60_000, 100);
    const seconds = (Date.now() - started) / 1000;
    // The figure issue #3 asks for; not asserted (timings are not test material).
    process.stdout.write(`\n${COUNT} deliveries in ${seconds.toFixed(2)} s: ${Math.round(COUNT / seconds)} deliveries/s\n`);

    expect(done.statistics).toMatchObject({ users: COUNT, installations: COUNT, accepted: COUNT, failed: 0, skipped: 0 });
    const accepted = acceptedPerAddress(stack.fakes);
    expect(accepted.size).toBe(COUNT);
    expect([...accepted.values()].every((n) => n === 1)).toBe(true);
    for (const s of seeded) expect(accepted.get(s.address)).toBe(1);
  }, 90_000);
});
