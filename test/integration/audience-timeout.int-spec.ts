import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, TestTenant } from '../support/factories';

/**
 * A count past AUDIENCE_STATEMENT_TIMEOUT_MS ends with the documented 503 (issue 51 item 1,
 * docs/api.md#count-an-audience): a limit of 1 ms on 20,000 installations.
 */
describe('a count over its time limit', () => {
  const ctx = useTestApp({ env: { AUDIENCE_STATEMENT_TIMEOUT_MS: '1' } });
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx, 'Slow');
    await ctx.db.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, device, registered_at, last_seen_at)
       SELECT $1, 'inst-' || n, 'ios', md5(n::text), jsonb_build_object('app_version', '4.' || (n % 13), 'locale', 'fr_FR'), now(), now()
       FROM generate_series(1, 20000) AS n`,
      [tenant.appId],
    );
  });

  it('answers 503 with its message, and the connection is back in the pool without the limit', async () => {
    // Costly within the budget (docs/api.md#audience-filters "Cost"): two version keys and two languages computed a row.
    const versions = [
      ...['4.1', '4.5'].map((value) => ({ field: 'app_version', op: 'gt', value })),
      ...['de', 'es'].map((value) => ({ field: 'language', op: 'ne', value })),
    ];
    const res = await ctx
      .http()
      .post('/api/v1/audiences/count')
      .set(bearer(tenant.token))
      .send({ recipients: { filter: { not: { and: versions } } } });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ message: 'The audience took longer than 1 ms to evaluate and was stopped: narrow the filter, or try again later.' });
    expect(res.headers['retry-after']).toBeUndefined();
    for (let i = 0; i < 10; i++) expect(await ctx.db.query('SHOW statement_timeout')).toEqual([{ statement_timeout: '0' }]);
  });
});
