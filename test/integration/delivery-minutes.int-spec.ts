import { apnsToken, bearer, fcmToken, newInstallation } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';

/**
 * Issue 31 item 10: the per-minute counters the dashboard draws (`delivery_minutes`, the overview and
 * a notification's chart) count every delivery's end, skips included: those the fan-out decides
 * (permission denied, platform excluded, no token) and those a cancel makes, so each outcome's
 * minutes add up to the notification's statistics.
 */
describe('per-minute counters count skipped deliveries (issue 31 item 10)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Minutes');

  /** A notification's minutes, summed per outcome. */
  const minutes = async (id: string) => {
    const rows = await ctx.db.query<{ outcome: string; count: number }[]>(
      `SELECT outcome, sum(count)::int AS count FROM delivery_minutes WHERE notification_id = $1 GROUP BY outcome`,
      [id],
    );
    return Object.fromEntries(rows.map((row) => [row.outcome, row.count]));
  };
  const send = (body: Record<string, unknown>) =>
    ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ notification: { title: 'Counted', body: 'Every minute' }, ...body })
      .expect(202)
      .then((res) => res.body.data.id as string);

  it("counts the fan-out's skips beside the attempts' outcomes, as the statistics do", async () => {
    const user = 'minutes-user';
    await newInstallation(ctx, tenant.token, { user_id: user, platform: 'ios', push_token: apnsToken() });
    await newInstallation(ctx, tenant.token, { user_id: user, platform: 'ios', push_token: apnsToken(), permission: 'denied' });
    await newInstallation(ctx, tenant.token, { user_id: user, platform: 'android', push_token: fcmToken() });
    const id = await send({ recipients: { user_ids: [user] }, options: { platforms: ['ios'] } });
    const done = await notificationCompleted(ctx, tenant.token, id);
    expect(done.statistics).toMatchObject({ installations: 3, accepted: 1, failed: 0, skipped: 2 });
    // Denied and PlatformExcluded at the fan-out, one accepted by APNs.
    expect(await minutes(id)).toEqual({ accepted: 1, skipped: 2 });
  });

  it("counts a cancel's skips: a send held for its devices' local time, cancelled", async () => {
    const user = 'minutes-later';
    for (let i = 0; i < 3; i++) await newInstallation(ctx, tenant.token, { user_id: user, platform: 'ios', push_token: apnsToken() });
    // A local time 12 hours from now (UTC devices): every row waits, scheduled.
    const later = new Date(Date.now() + 12 * 3_600_000).toISOString().slice(11, 16);
    const id = await send({ recipients: { user_ids: [user] }, options: { local_time: later } });
    const scheduled = async () =>
      (await ctx.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM deliveries WHERE notification_id = $1 AND status = 'scheduled'`, [id]))[0].n;
    await waitFor(async () => (await scheduled()) === 3, 'the fan-out to schedule the three deliveries');
    expect(await minutes(id)).toEqual({});
    await ctx.http().post(`/api/v1/notifications/${id}/cancel`).set(bearer(tenant.token)).expect(200);
    const done = await notificationCompleted(ctx, tenant.token, id);
    expect(done.statistics).toMatchObject({ installations: 3, skipped: 3 });
    expect(await minutes(id)).toEqual({ skipped: 3 });
  });
});
