import { Client } from 'pg';
import type { Response } from 'supertest';
import { MetricsService } from '../../src/metrics/metrics.service';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, newInstallation, installationId, apnsToken, TestTenant } from '../support/factories';

/**
 * Audience counts take a slot of the api process (issue 51 item 1, docs/api.md#count-an-audience):
 * at most AUDIENCE_CONCURRENCY_PER_APP for an app and AUDIENCE_CONCURRENCY in all, and a count past
 * either answers 429 at once, without a pool connection. A count is held without a clock: a test
 * connection takes topic_subscriptions in ACCESS EXCLUSIVE mode, which a topic count's statement
 * meets (its plan reads the table) and an installation's PUT or an `all` count does not.
 */
const ADMIN = { ADMIN_USER: 'ops', ADMIN_PASSWORD: 'a-long-dashboard-password' };

describe('audience slots', () => {
  let locker: Client | undefined;
  /** Outside the locker's transaction, which would see pg_stat_activity as it was when it began. */
  let observer: Client | undefined;
  // Before the app's own: its database is dropped when it closes.
  afterAll(() => Promise.all([locker?.end(), observer?.end()]));
  const ctx = useTestApp({ env: { AUDIENCE_STATEMENT_TIMEOUT_MS: '600000', AUDIENCE_CONCURRENCY: '2', AUDIENCE_CONCURRENCY_PER_APP: '1', ...ADMIN } });
  let a: TestTenant;
  let b: TestTenant;
  let c: TestTenant;

  beforeAll(async () => {
    [a, b, c] = [await newApp(ctx, 'A'), await newApp(ctx, 'B'), await newApp(ctx, 'C')];
    for (const tenant of [a, b, c]) {
      await ctx.http().put('/api/v1/topics/news').set(bearer(tenant.token)).send({ name: 'News', default: 'unsubscribed' }).expect(201);
      await newInstallation(ctx, tenant.token, { user_id: 'user-1' });
    }
    locker = new Client({ connectionString: ctx.databaseUrl });
    observer = new Client({ connectionString: ctx.databaseUrl });
    await Promise.all([locker.connect(), observer.connect()]);
  });

  const count = (tenant: TestTenant, recipients: Record<string, unknown>) =>
    ctx.http().post('/api/v1/audiences/count').set(bearer(tenant.token)).send({ recipients });

  /** Sends now, answers when the count does. */
  const started = (tenant: TestTenant, recipients: Record<string, unknown>): Promise<Response> => count(tenant, recipients).then((res) => res);

  /** How many count statements wait for the lock on topic_subscriptions (by their start: a topic count's text is cut at 1 KB). */
  const waiting = async (): Promise<number> =>
    (
      await observer!.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'SELECT i.platform, count(*)::int AS installations%' AND wait_event_type = 'Lock'`,
      )
    ).rows[0].n;

  const until = async (check: () => Promise<boolean>): Promise<void> => {
    while (!(await check())) await new Promise((resolve) => setImmediate(resolve));
  };

  it('refuses an app past its limit and the process past its own at once, while other apps count and register', async () => {
    await locker!.query('BEGIN');
    await locker!.query('LOCK TABLE topic_subscriptions IN ACCESS EXCLUSIVE MODE');
    const heldA = started(a, { topic: 'news' });
    await until(async () => (await waiting()) === 1);

    // A's next count: over A's limit (1), answered without waiting for the held one.
    const refused = await count(a, { all: true });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'Too Many Attempts.' });
    expect(refused.headers['retry-after']).toBe('1');

    // B is not starved: its count and its installation's PUT go through while A's count runs.
    const countB = await count(b, { all: true });
    expect(countB.status).toBe(200);
    expect(countB.body.data.installations).toBe(1);
    const put = await ctx.http().put(`/api/v1/installations/${installationId()}`).set(bearer(b.token)).send({ platform: 'ios', push_token: apnsToken() });
    expect(put.status).toBe(201);

    // The process's limit (2): B holds the second slot, so C is refused though under its own limit.
    const heldB = started(b, { topic: 'news' });
    await until(async () => (await waiting()) === 2);
    const countC = await count(c, { all: true });
    expect(countC.status).toBe(429);
    expect(countC.headers['retry-after']).toBe('1');
    expect(await waiting()).toBe(2);

    await locker!.query('COMMIT');
    expect((await heldA).status).toBe(200);
    expect((await heldB).status).toBe(200);

    // The slots are back: A and C count again.
    expect((await count(a, { all: true })).status).toBe(200);
    expect((await count(c, { all: true })).status).toBe(200);
    expect((await ctx.get(MetricsService).audienceRefused.get()).values[0].value).toBe(2);
  });

  it('limits the dashboard composer’s count with the API’s', async () => {
    const login = await ctx
      .http()
      .post('/admin/api/session')
      .set('Authorization', `Basic ${Buffer.from(`${ADMIN.ADMIN_USER}:${ADMIN.ADMIN_PASSWORD}`).toString('base64')}`)
      .expect(200);
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    const composer = (tenant: TestTenant) =>
      ctx
        .http()
        .post(`/admin/api/apps/${tenant.appId}/audiences/count`)
        .set('Cookie', cookie)
        .set('X-CSRF-Token', login.body.data.csrf_token as string)
        .send({ recipients: { all: true } });

    await locker!.query('BEGIN');
    await locker!.query('LOCK TABLE topic_subscriptions IN ACCESS EXCLUSIVE MODE');
    const heldA = started(a, { topic: 'news' });
    await until(async () => (await waiting()) === 1);
    const refused = await composer(a);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect((await composer(b)).status).toBe(200);
    await locker!.query('COMMIT');
    expect((await heldA).status).toBe(200);
    expect((await composer(a)).status).toBe(200);
  });

  it('gives a hung-up count’s slot back once the cancel has ended its statement', async () => {
    await locker!.query('BEGIN');
    await locker!.query('LOCK TABLE topic_subscriptions IN ACCESS EXCLUSIVE MODE');
    const pending = count(a, { topic: 'news' });
    pending.end(() => undefined);
    await until(async () => (await waiting()) === 1);
    pending.abort();
    // The cancel ends the statement in PostgreSQL; only then is the slot free.
    await until(async () => (await waiting()) === 0);
    await locker!.query('COMMIT');
    let res: Response;
    do res = await count(a, { all: true });
    while (res.status === 429);
    expect(res.status).toBe(200);
  });
});
