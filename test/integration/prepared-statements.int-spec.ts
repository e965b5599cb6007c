import type { Pool } from 'pg';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { useTestApp } from '../support/create-test-app';
import { bearer, fcmToken, newApp, newInstallation } from '../support/factories';

/**
 * DATABASE_PREPARED_STATEMENTS=false (docs/operations.md, Scaling: PgBouncer): the API's hot
 * statements (token check, installation update, send insert) still run, and leave no named prepared
 * statement on the connection, which a transaction pooler could lend to another client next. One
 * pooled connection, so the check sees the session the requests used.
 */
describe('with DATABASE_PREPARED_STATEMENTS=false', () => {
  const ctx = useTestApp({ env: { DATABASE_PREPARED_STATEMENTS: 'false', DATABASE_POOL_SIZE: '1' } });
  const preparedNames = async () => (await ctx.db.query<{ name: string }[]>('SELECT name FROM pg_prepared_statements')).map((row) => row.name);

  it('answers the hot paths without preparing a named statement', async () => {
    const tenant = await newApp(ctx);
    await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: 'lin' }, 'lin-phone');
    await ctx.http().patch('/api/v1/installations/lin-phone').set(bearer(tenant.token)).send({ user_id: 'lin' }).expect(200);
    const sent = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ notification: { title: 'Hello', body: 'World' }, recipients: { user_ids: ['lin'] } })
      .expect(202);
    // A small send (started before its 202, docs/api.md#small-sends): its chunk runs unnamed too.
    expect(sent.body.data.processing_started_at).toEqual(expect.any(String));

    expect(await preparedNames()).toEqual([]);
    // The check can see a named statement on this connection when there is one.
    const pool = (ctx.db.driver as PostgresDriver).master as Pool;
    await pool.query({ name: 'visible_probe', text: 'SELECT 1' });
    expect(await preparedNames()).toEqual(['visible_probe']);
  });
});
