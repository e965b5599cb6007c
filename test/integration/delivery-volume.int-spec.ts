import { acceptedPerAddress, seedInstallations } from '../support/providers';
import { notificationCompleted, sendToUsers } from '../support/notifications';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';

const COUNT = 5000;

describe(`a send to ${COUNT} installations`, () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack);

  it('delivers exactly once to each installation', async () => {
    const seeded = await seedInstallations(ctx, tenant.appId, stack.fakes, COUNT);
    const started = Date.now();
    const id = await sendToUsers(
      ctx,
      tenant.token,
      seeded.map((s) => s.userId),
      { title: 'Hi', body: 'Everyone' },
    );
    const done = await notificationCompleted(ctx, tenant.token, id, 60_000, 100);
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
