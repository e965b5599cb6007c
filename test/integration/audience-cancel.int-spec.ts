import { Client } from 'pg';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, TestTenant } from '../support/factories';

/**
 * A count whose client hangs up is cancelled (issue 51 item 1, docs/api.md#count-an-audience): a
 * filter that computes two version keys and two languages for each of 300,000 installations runs long enough to be
 * seen running, the time limit is far away, and the backend's transaction then ends in ROLLBACK
 * (the cancel's error), where a count that ran to its end commits.
 */
describe('a count whose client hangs up', () => {
  let observer: Client | undefined;
  // Before the app's own: its database is dropped when it closes.
  afterAll(() => observer?.end());
  const ctx = useTestApp({ env: { AUDIENCE_STATEMENT_TIMEOUT_MS: '600000' } });
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx, 'Cancel');
    await ctx.db.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, device, registered_at, last_seen_at)
       SELECT $1, 'inst-' || n, 'ios', md5(n::text), jsonb_build_object('app_version', '4.' || (n % 13), 'locale', 'fr_FR'), now(), now()
       FROM generate_series(1, 300000) AS n`,
      [tenant.appId],
    );
    observer = new Client({ connectionString: ctx.databaseUrl });
    await observer.connect();
  });

  /** The backends running a count's statement (the only statement on installations with GROUPING SETS). */
  const counting = async (): Promise<{ pid: number; state: string }[]> =>
    (
      await observer!.query(
        `SELECT pid, state FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%GROUPING SETS%' AND state = 'active'`,
      )
    ).rows;

  const until = async <T>(check: () => Promise<T | undefined>): Promise<T> => {
    for (;;) {
      const found = await check();
      if (found !== undefined) return found;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  it('is cancelled in PostgreSQL, and its connection serves the next request', async () => {
    // Costly within the budget (docs/api.md#audience-filters "Cost"): two version keys and two languages computed a row.
    const versions = [
      ...['4.1', '4.5'].map((value) => ({ field: 'app_version', op: 'gt', value })),
      ...['de', 'es'].map((value) => ({ field: 'language', op: 'ne', value })),
    ];
    const pending = ctx
      .http()
      .post('/api/v1/audiences/count')
      .set(bearer(tenant.token))
      .send({ recipients: { filter: { not: { and: versions } } } });
    pending.end(() => undefined);

    const [running] = await until(async () => {
      const rows = await counting();
      return rows.length > 0 ? rows : undefined;
    });
    pending.abort();
    const [ended] = await until(async () => {
      const { rows } = await observer!.query(`SELECT state, query FROM pg_stat_activity WHERE pid = $1 AND state = 'idle'`, [running.pid]);
      return rows.length > 0 ? (rows as { query: string }[]) : undefined;
    });
    expect(ended.query).toBe('ROLLBACK');

    const res = await ctx
      .http()
      .post('/api/v1/audiences/count')
      .set(bearer(tenant.token))
      .send({ recipients: { all: true } });
    expect(res.status).toBe(200);
    expect(res.body.data.installations).toBe(300000);
  });
});
