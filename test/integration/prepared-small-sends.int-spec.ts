import { useTestApp } from '../support/create-test-app';
import { bearer, fcmToken, newApp, newInstallation } from '../support/factories';

/** By default a small send's statement (docs/api.md#small-sends: the send and its rows) is a named statement, one per recipient kind. */
describe('with DATABASE_PREPARED_STATEMENTS unset', () => {
  const ctx = useTestApp({ env: { DATABASE_POOL_SIZE: '1' } });

  it("prepares a small send's statement once per connection, by its kind", async () => {
    const tenant = await newApp(ctx);
    await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: 'kim' }, 'kim-phone');
    for (const recipients of [{ user_ids: ['kim'] }, { user_ids: ['kim'] }, { installation_ids: ['kim-phone'] }]) {
      const sent = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .send({ notification: { title: 'Hi', body: 'Kim' }, recipients })
        .expect(202);
      // A small send, started before its 202 (docs/api.md#small-sends).
      expect(sent.body.data).toMatchObject({ processing_started_at: expect.any(String), statistics: expect.objectContaining({ installations: 1 }) });
    }
    const names = (await ctx.db.query<{ name: string }[]>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'store_small_%' ORDER BY name`)).map(
      (row) => row.name,
    );
    expect(names).toEqual(['store_small_installation_ids', 'store_small_user_ids']);
  });
});
