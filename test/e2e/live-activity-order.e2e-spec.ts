import { apnsToken, bearer, newApp, newInstallation, TestTenant } from '../support/factories';
import { inParallel, ServiceProcess } from '../support/processes';
import { configureProviders } from '../support/providers';
import { fakeProvidersWorkerEnv, useApiWithFakeProviders } from '../support/use-api-with-fake-providers';
import { waitFor } from '../support/wait-for';

const UPDATES = 1000;

/**
 * docs/api.md#live-activity-updates: 1,000 updates to one activity, posted concurrently and sent by
 * two worker processes (the built service in APP_MODE=worker), reach APNs in the order the API
 * accepted them: `timestamp` never goes back, no older update follows a newer one, and the last
 * state APNs accepts is the last one posted.
 */
describe('Live Activity updates from two workers', () => {
  const stack = useApiWithFakeProviders();
  const { ctx } = stack;
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    await configureProviders(ctx, tenant.appId, stack.fakes);
  });

  it('arrive in order, and the last one posted is the last state accepted', async () => {
    const installation = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken() });
    const pushToken = apnsToken();
    await ctx
      .http()
      .put('/api/v1/live-activities/order-1')
      .set(bearer(tenant.token))
      .send({ installation_id: installation.installation_id, attributes_type: 'DeliveryAttributes', push_token: pushToken })
      .expect(201);
    // A little latency keeps several updates in flight, so the workers really compete.
    stack.fakes.apns.delayMs = 2;
    const env = fakeProvidersWorkerEnv(ctx, stack.fakes, { WORKER_CONCURRENCY: '8' });
    const workers = [ServiceProcess.start(env), ServiceProcess.start(env)];
    await Promise.all(workers.map((worker) => worker.waitForOutput(/Started in worker mode/)));

    const post = (state: Record<string, unknown>) =>
      ctx.http().post('/api/v1/live-activities/order-1/updates').set(bearer(tenant.token)).send({ event: 'update', content_state: state }).expect(202);
    const answers = await inParallel(
      Array.from({ length: UPDATES }, (_, n) => () => post({ n })),
      32,
    );
    const last = (await post({ n: 'last' })).body.data;
    const ids = [...answers.map((answer) => answer.body.data.id as string), last.id];

    await waitFor(
      async () => {
        const [row] = await ctx.db.query(`SELECT count(*)::int AS pending FROM live_activity_updates WHERE status = 'pending'`);
        return row.pending === 0;
      },
      'every update to be sent or skipped',
      120_000,
      100,
    );
    await Promise.all(workers.map((worker) => worker.stop('SIGTERM')));

    const rows: { id: string; seq: string; status: string; reason: string | null }[] = await ctx.db.query(
      `SELECT id, seq, status, reason FROM live_activity_updates WHERE id = ANY($1)`,
      [ids],
    );
    expect(rows).toHaveLength(UPDATES + 1);
    expect(rows.filter((row) => row.status === 'failed')).toEqual([]);
    // Skipped ones were older than one APNs had already accepted.
    expect(new Set(rows.filter((row) => row.status === 'skipped').map((row) => row.reason))).toEqual(
      new Set(rows.some((row) => row.status === 'skipped') ? ['Superseded'] : []),
    );

    const accepted = stack.fakes.apns.requests.filter((request) => request.token === pushToken && request.status === 200);
    const aps = accepted.map((request) => (request.payload as { aps: { timestamp: number; 'content-state': { n: number | string } } }).aps);
    const stamps = aps.map((entry) => entry.timestamp);
    expect(stamps.every((stamp, n) => n === 0 || stamp >= stamps[n - 1])).toBe(true);
    // The order APNs received them in is the order the API numbered them in.
    const seqOf = new Map(rows.map((row) => [JSON.stringify(row.id), Number(row.seq)]));
    const sequenceByState = new Map<string, number>();
    answers.forEach((answer, n) => sequenceByState.set(JSON.stringify({ n }), seqOf.get(JSON.stringify(answer.body.data.id))!));
    sequenceByState.set(JSON.stringify({ n: 'last' }), seqOf.get(JSON.stringify(last.id))!);
    const sequences = aps.map((entry) => sequenceByState.get(JSON.stringify(entry['content-state']))!);
    expect(sequences.every((seq, n) => n === 0 || seq > sequences[n - 1])).toBe(true);
    expect(aps[aps.length - 1]['content-state']).toEqual({ n: 'last' });
    // Both workers sent some: each opens its own HTTP/2 connection to APNs.
    expect(stack.fakes.apns.sessions).toBeGreaterThanOrEqual(2);
    expect(rows.filter((row) => row.status === 'accepted').length).toBe(accepted.length);
  }, 180_000);
});
