import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { DELIVER_QUEUE, deliverJobId, FANOUT_QUEUE, fanoutJobId } from '../../src/common/queues';
import { FairSharesService } from '../../src/delivery/fair-shares/fair-shares.service';
import { FANOUT_WINDOW, FanoutSharesService } from '../../src/delivery/fair-shares/fanout-shares.service';
import { SweeperService } from '../../src/delivery/sweeper/sweeper.service';
import { LaneDepthSampler } from '../../src/metrics/lane-depth.sampler';
import { MetricsService } from '../../src/metrics/metrics.service';
import { bearer } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { seedInstallations } from '../support/providers';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';

/**
 * docs/api.md#fair-sharing: a batch per installation, one delivery job at a time and a window of two
 * batches per app and lane, so the order in which the fake APNs sees the devices is the order in
 * which the deliver queue served the apps' batches. No timing: the worker is paused while the sends
 * are fanned out, then let go.
 */
describe('fair shares between apps and lanes (docs/api.md#fair-sharing)', () => {
  const stack = useAppWithFakeProviders({ WORKER_CONCURRENCY: '1', DELIVERY_BATCH_SIZE: '1', SMALL_SEND_MAX_RECIPIENTS: '0' });
  const { ctx } = stack;
  const a = useTenantWithProviders(stack, 'App A');
  const b = useTenantWithProviders(stack, 'App B');

  beforeAll(() => {
    ctx.get(FairSharesService).window = 2;
  });
  /** The api's and the worker's (each module has its own). */
  const fanoutWindows = (window: number) => {
    for (const shares of ctx.app.get(FanoutSharesService, { strict: false, each: true })) shares.window = window;
  };
  afterEach(async () => {
    fanoutWindows(FANOUT_WINDOW);
    await fanoutQueue().resume();
  });
  /** Paused, the queue hands no job to the worker (unlike a paused worker, which may have one in hand). */
  const deliverQueue = () => ctx.app.get<Queue>(getQueueToken(DELIVER_QUEUE), { strict: false });
  const fanoutQueue = () => ctx.app.get<Queue>(getQueueToken(FANOUT_QUEUE), { strict: false });

  const send = async (token: string, users: string[], options: Record<string, unknown> = {}) => {
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(token))
      .send({ recipients: { user_ids: users }, notification: { title: 'Hi', body: 'There' }, options })
      .expect(202);
    return { id: res.body.data.id as string, token };
  };
  const fannedOut = (id: string) =>
    waitFor(async () => {
      const [row] = await ctx.db.query(`SELECT 1 FROM notifications WHERE id = $1 AND fanned_out_at IS NOT NULL`, [id]);
      return row;
    }, `notification ${id} to be fanned out`);
  const lanes = async () =>
    ctx.db.query(`SELECT lane, count(*) FILTER (WHERE queued_at IS NOT NULL)::int AS queued, count(*) FILTER (WHERE queued_at IS NULL)::int AS held
                  FROM fair_share_batches GROUP BY app_id, lane ORDER BY app_id, lane`);
  /** Every place given back: a job gives its place back after its last outcome, which may complete the send first. */
  const windowsEmpty = () =>
    waitFor(
      async () => (await lanes()).length === 0 && (await ctx.db.query(`SELECT 1 FROM fair_share_fanouts`)).length === 0,
      'every place in the windows to be given back',
    );
  /** Runs the sends' fan-outs with delivery paused, then delivers; the APNs tokens in the order they were sent. */
  const deliveredInOrder = async (sends: (() => Promise<{ id: string; token: string }>)[]) => {
    await deliverQueue().pause();
    const before = stack.fakes.apns.requests.length;
    const started: { id: string; token: string }[] = [];
    for (const start of sends) {
      const sent = await start();
      await fannedOut(sent.id);
      started.push(sent);
    }
    const heldWhilePaused = await lanes();
    await ctx.get(LaneDepthSampler).sample();
    const gauge = await ctx.get(MetricsService).registry.getSingleMetric('pns_lane_batches')!.get();
    const metrics = Object.fromEntries(gauge.values.map(({ labels, value }) => [Object.values(labels).join(','), value]));
    await deliverQueue().resume();
    for (const { id, token } of started) await notificationCompleted(ctx, token, id);
    return { order: stack.fakes.apns.requests.slice(before).map((r) => r.token), heldWhilePaused, metrics };
  };

  it("serves a second app's send before the first app's backlog ends", async () => {
    const big = await seedInstallations(ctx, a.appId, stack.fakes, 12, 'a-user', 'ios');
    const small = await seedInstallations(ctx, b.appId, stack.fakes, 2, 'b-user', 'ios');
    const { order, heldWhilePaused, metrics } = await deliveredInOrder([
      () =>
        send(
          a.token,
          big.map((s) => s.userId),
        ),
      () =>
        send(
          b.token,
          small.map((s) => s.userId),
        ),
    ]);
    // A's 12 batches: 2 queued, 10 held; B's 2 queued behind A's 2.
    expect(heldWhilePaused).toEqual(
      expect.arrayContaining([
        { lane: 'transactional', queued: 2, held: 10 },
        { lane: 'transactional', queued: 2, held: 0 },
      ]),
    );
    // The same, summed per lane without app labels (METRICS_APP_LABELS off).
    expect(metrics).toEqual({ 'transactional,queued': 4, 'transactional,held': 10, 'marketing,queued': 0, 'marketing,held': 0 });
    expect(order).toHaveLength(14);
    const bDevices = new Set(small.map((s) => s.address));
    const lastOfB = Math.max(...small.map((s) => order.indexOf(s.address)));
    // Without the windows B would come after all of A's 12: here A's next batches queue behind B's.
    expect(lastOfB).toBeLessThan(5);
    expect(order.slice(lastOfB + 1).every((token) => !bDevices.has(token))).toBe(true);
    await windowsEmpty();
  }, 60_000);

  it("fans out a second app's send before the first app's queued sends", async () => {
    // One fan-out per app at a time; the worker runs two at once.
    fanoutWindows(1);
    const aUsers = await seedInstallations(ctx, a.appId, stack.fakes, 5, 'a-fan', 'ios');
    const bUsers = await seedInstallations(ctx, b.appId, stack.fakes, 1, 'b-fan', 'ios');
    await fanoutQueue().pause();
    const aSends = [];
    for (const user of aUsers) aSends.push(await send(a.token, [user.userId]));
    const bSend = await send(b.token, [bUsers[0].userId]);
    // A's first is queued, its four others held; B's is queued behind A's first.
    expect(await ctx.db.query(`SELECT count(*) FILTER (WHERE queued_at IS NULL)::int AS held, count(*)::int AS places FROM fair_share_fanouts`)).toEqual([
      { held: 4, places: 6 },
    ]);
    // The same in the metrics (docs/operations.md "Fair shares").
    await ctx.get(LaneDepthSampler).sample();
    const gauge = await ctx.get(MetricsService).registry.getSingleMetric('pns_fanout_sends')!.get();
    expect(Object.fromEntries(gauge.values.map(({ labels, value }) => [labels.state, value]))).toEqual({ queued: 2, held: 4 });
    await fanoutQueue().resume();
    for (const { id, token } of [...aSends, bSend]) await notificationCompleted(ctx, token, id);
    const order: { id: string }[] = await ctx.db.query(`SELECT id FROM notifications WHERE id = ANY($1::uuid[]) ORDER BY fanned_out_at, id`, [
      [...aSends, bSend].map((sent) => sent.id),
    ]);
    // First in, first out, B's would be 5th or 6th (two at a time, behind A's five); here at most 3rd.
    expect(order.findIndex((row) => row.id === bSend.id)).toBeLessThanOrEqual(2);
    await windowsEmpty();
  }, 60_000);

  it('keeps held fan-outs from the sweeper, and frees a place whose fan-out ended without giving it back', async () => {
    fanoutWindows(1);
    const users = await seedInstallations(ctx, a.appId, stack.fakes, 3, 'a-swept-fan', 'ios');
    await fanoutQueue().pause();
    const first = await send(a.token, [users[0].userId]);
    const second = await send(a.token, [users[1].userId]);
    // Both a minute old: the sweeper owes a job to an unfanned send, but not to one held behind its app's window.
    await ctx.db.query(`UPDATE notifications SET created_at = now() - interval '1 minute' WHERE id = ANY($1::uuid[])`, [[first.id, second.id]]);
    await ctx.get(SweeperService).sweep();
    expect(await fanoutQueue().getJob(fanoutJobId(second.id))).toBeUndefined();
    expect(await fanoutQueue().getJob(fanoutJobId(first.id))).toBeDefined();
    await fanoutQueue().resume();
    for (const { id, token } of [first, second]) await notificationCompleted(ctx, token, id);
    // As if the first's worker had died after its fan-out's last commit: its place is still taken.
    await ctx.db.query(`INSERT INTO fair_share_fanouts (app_id, notification_id, queued_at) VALUES ($1, $2, now())`, [a.appId, first.id]);
    const third = await send(a.token, [users[2].userId]);
    expect(await ctx.db.query(`SELECT notification_id, queued_at IS NULL AS held FROM fair_share_fanouts WHERE notification_id = $1`, [third.id])).toEqual([
      { notification_id: third.id, held: true },
    ]);
    // The sweeper (every 300 ms here) frees the stale place; the held fan-out takes it.
    await notificationCompleted(ctx, third.token, third.id);
    await windowsEmpty();
  }, 60_000);

  it("sends an app's transactional send before its queued marketing batches", async () => {
    const audience = await seedInstallations(ctx, a.appId, stack.fakes, 10, 'a-reader', 'ios');
    const urgent = await seedInstallations(ctx, a.appId, stack.fakes, 1, 'a-urgent', 'ios');
    const { order } = await deliveredInOrder([
      () =>
        send(
          a.token,
          audience.map((s) => s.userId),
          { category: 'marketing' },
        ),
      () => send(a.token, [urgent[0].userId]),
    ]);
    expect(order).toHaveLength(11);
    // Behind at most the marketing lane's window of two, not behind its ten.
    expect(order.indexOf(urgent[0].address)).toBeLessThan(3);
  }, 60_000);

  it('queues again the job of a place whose worker died between the window and the queue', async () => {
    const seeded = await seedInstallations(ctx, b.appId, stack.fakes, 3, 'b-lost', 'ios');
    await deliverQueue().pause();
    const { id } = await send(
      b.token,
      seeded.map((s) => s.userId),
    );
    await fannedOut(id);
    // Batch 0's place is taken, its job never added; queued a minute ago, long before DELIVERY_STUCK_MS (2 min).
    await deliverQueue().remove(deliverJobId(id, 0));
    await ctx.db.query(`UPDATE fair_share_batches SET queued_at = now() - interval '1 minute' WHERE notification_id = $1 AND batch = 0`, [id]);
    await deliverQueue().resume();
    // The sweeper (every 300 ms here) queues it again: the send completes with its three devices.
    await notificationCompleted(ctx, b.token, id);
    await windowsEmpty();
    const sent = new Set(stack.fakes.apns.requests.map((r) => r.token));
    for (const s of seeded) expect(sent.has(s.address)).toBe(true);
  }, 60_000);

  it('lets a held batch through when the sweeper frees a place a dead job kept', async () => {
    const seeded = await seedInstallations(ctx, b.appId, stack.fakes, 3, 'b-swept', 'ios');
    await deliverQueue().pause();
    const { id } = await send(
      b.token,
      seeded.map((s) => s.userId),
    );
    await fannedOut(id);
    // As if the window's two jobs had sent their batches and died before giving their places back.
    for (const batch of [0, 1]) await deliverQueue().remove(deliverJobId(id, batch));
    await ctx.db.query(`UPDATE deliveries SET status = 'accepted' WHERE notification_id = $1 AND batch IN (0, 1)`, [id]);
    await ctx.db.query(`UPDATE fair_share_batches SET queued_at = now() - interval '1 hour' WHERE notification_id = $1 AND queued_at IS NOT NULL`, [id]);
    // The sweeper (every 300 ms here) frees both places; the held batch takes one.
    await waitFor(async () => {
      const rows: { batch: number; queued: boolean }[] = await ctx.db.query(
        `SELECT batch, queued_at IS NOT NULL AS queued FROM fair_share_batches WHERE notification_id = $1`,
        [id],
      );
      return rows.length === 1 && rows[0].batch === 2 && rows[0].queued;
    }, 'the held batch to be let through');
    const before = stack.fakes.apns.requests.length;
    await deliverQueue().resume();
    // Only the held batch is left to send (the others' rows were marked sent above).
    await waitFor(async () => stack.fakes.apns.requests.length > before && (await lanes()).length === 0, 'the held batch to be sent');
    const sent = stack.fakes.apns.requests.slice(before).map((r) => r.token);
    expect(sent).toHaveLength(1);
    expect(seeded.map((s) => s.address)).toContain(sent[0]);
  }, 60_000);
});
