import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DELIVER_QUEUE, dueSendsJobId, FANOUT_QUEUE, fanoutJobId, SMALL_SEND_QUEUE } from '../../src/common/queues';
import { apnsToken, bearer, newInstallation } from '../support/factories';
import { SweeperService } from '../../src/delivery/sweeper/sweeper.service';
import { notificationCompleted } from '../support/notifications';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { retentionPartitionsMade } from '../support/partitions';
import { waitFor } from '../support/wait-for';

/** Small sends (docs/api.md#small-sends): fanned out by the API in the transaction that stores them, delivered from a queue of their own. */
describe('small sends (docs/api.md#small-sends)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Small sends');

  const queue = (name: string) => ctx.app.get<Queue>(getQueueToken(name), { strict: false });
  /** A one-time code (plus `body`), answered 202; the accepted notification. */
  const accepted = async (body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Record<string, any>> => {
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set({ ...bearer(tenant.token), ...headers })
      .send({ notification: { title: 'Your code', body: '123456' }, ...body });
    expect(res.status).toBe(202);
    return res.body.data;
  };
  const send = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => (await accepted(body, headers)).id as string;
  /** A user with one iOS installation; its push token. */
  const iosUser = async (): Promise<{ user: string; token: string }> => {
    const user = `user-${randomUUID()}`;
    const token = apnsToken();
    await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: token, user_id: user });
    return { user, token };
  };
  // A small send beside retention's start-up DDL falls back to its fan-out job (tested below): the others wait for it.
  beforeAll(() => retentionPartitionsMade(ctx));
  const rows = async (id: string) => (await ctx.db.query(`SELECT count(*)::int AS n FROM deliveries WHERE notification_id = $1`, [id]))[0].n as number;
  const fanoutJob = (id: string) => queue(FANOUT_QUEUE).getJob(fanoutJobId(id));

  const fannedOutAt = async (id: string) => (await ctx.db.query(`SELECT fanned_out_at FROM notifications WHERE id = $1`, [id]))[0].fanned_out_at as Date | null;

  it('is fanned out before the 202: its deliveries exist, its batch on deliver-small, no fan-out job; its batch job finishes it', async () => {
    const { user, token } = await iosUser();
    const notification = await accepted({ recipients: { user_ids: [user] } });
    const id = notification.id as string;
    // The 202 shows the notification as committed: processing, its installation counted.
    expect(notification.processing_started_at).toEqual(expect.any(String));
    expect(notification.statistics).toMatchObject({ users: 1, installations: 1 });
    expect(await rows(id)).toBe(1);
    expect(await queue(SMALL_SEND_QUEUE).getJob(`deliver-${id}-0`)).toBeDefined();
    expect(await fanoutJob(id)).toBeUndefined();

    const done = await notificationCompleted(ctx, tenant.token, id);
    expect(done.statistics).toMatchObject({ users: 1, installations: 1, accepted: 1 });
    expect(await fannedOutAt(id)).toBeInstanceOf(Date);
    expect(await fanoutJob(id)).toBeUndefined();
    expect(stack.fakes.apns.requests.filter((r) => r.token === token)).toHaveLength(1);
  });

  it('counts the users of installation ids when its batch job finishes it, as a fan-out job does', async () => {
    const first = await iosUser();
    const second = await iosUser();
    await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: first.user });
    const ids = (
      await ctx.db.query(`SELECT installation_id FROM installations WHERE app_id = $1 AND user_id = ANY($2)`, [tenant.appId, [first.user, second.user]])
    ).map((row: { installation_id: string }) => row.installation_id);
    expect(ids).toHaveLength(3);
    const id = await send({ recipients: { installation_ids: ids } });
    const done = await notificationCompleted(ctx, tenant.token, id);
    // Three installations of two users, as the fan-out job's finish counts them.
    expect(done.statistics).toMatchObject({ users: 2, installations: 3, accepted: 3 });
    expect((await ctx.db.query(`SELECT target_users FROM notifications WHERE id = $1`, [id]))[0].target_users).toBe(2);
  });

  it('is finished by the sweeper when its batch never reached the queue (Redis lost the add)', async () => {
    const { user, token } = await iosUser();
    // What a lost add leaves: the rows written and committed, no job.
    await queue(SMALL_SEND_QUEUE).pause();
    let id: string;
    try {
      id = await send({ recipients: { user_ids: [user] } });
      await (await queue(SMALL_SEND_QUEUE).getJob(`deliver-${id}-0`))!.remove();
    } finally {
      await queue(SMALL_SEND_QUEUE).resume();
    }
    await ctx.db.query(`UPDATE notifications SET created_at = created_at - interval '1 minute' WHERE id = $1`, [id]);
    await waitFor(async () => {
      await ctx.get(SweeperService).sweep();
      return (await ctx.db.query(`SELECT completed_at FROM notifications WHERE id = $1`, [id]))[0].completed_at;
    }, 'the send whose batch was lost to complete');
    expect(await fannedOutAt(id)).toBeInstanceOf(Date);
    expect(stack.fakes.apns.requests.filter((r) => r.token === token)).toHaveLength(1);
  });

  it('answers the 202 with the counters its fan-out wrote and the start its INSERT wrote, as the committed row holds them', async () => {
    const { user } = await iosUser();
    await newInstallation(ctx, tenant.token, { platform: 'android', push_token: `fcm-${randomUUID()}`, user_id: user });
    const notification = await accepted({ recipients: { user_ids: [user, `nobody-${randomUUID()}`] }, options: { platforms: ['ios'] } });
    const [row] = await ctx.db.query(
      `SELECT stat_users, stat_installations, stat_skipped, processing_started_at, created_at FROM notifications WHERE id = $1`,
      [notification.id],
    );
    expect(notification.statistics).toMatchObject({ users: 1, installations: 2, skipped: 1 });
    expect(notification.statistics).toMatchObject({ users: row.stat_users, installations: row.stat_installations, skipped: row.stat_skipped });
    expect(notification.processing_started_at).toBe(row.processing_started_at.toISOString());
    // Started in the transaction that stored it: the same instant as its creation.
    expect(row.processing_started_at.getTime()).toBe(row.created_at.getTime());
  });

  it('is sent while every delivery slot is taken: the deliver queue paused, a one-time code still arrives', async () => {
    const { user, token } = await iosUser();
    await queue(DELIVER_QUEUE).pause();
    try {
      const id = await send({ recipients: { user_ids: [user] } });
      await notificationCompleted(ctx, tenant.token, id);
      expect(stack.fakes.apns.requests.filter((r) => r.token === token)).toHaveLength(1);
    } finally {
      await queue(DELIVER_QUEUE).resume();
    }
  });

  it('sends the notification its batch job carries: the worker does not read it again', async () => {
    const { user, token } = await iosUser();
    await queue(SMALL_SEND_QUEUE).pause();
    try {
      const notification = await accepted({ recipients: { user_ids: [user] }, data: { order: 'A-1', z: 1, a: 2 } });
      const id = notification.id as string;
      const job = await queue(SMALL_SEND_QUEUE).getJob(`deliver-${id}-0`);
      // As the worker would have read it: the stored row's content, its start to the millisecond.
      expect(job!.data.carried).toEqual(
        expect.objectContaining({
          id,
          app_id: tenant.appId,
          processing_started_at: notification.processing_started_at,
          title: 'Your code',
          body: '123456',
          data: { order: 'A-1', z: 1, a: 2 },
        }),
      );
      // Changed behind the service's back: a read would send this title.
      await ctx.db.query(`UPDATE notifications SET title = 'Read again' WHERE id = $1`, [id]);
    } finally {
      await queue(SMALL_SEND_QUEUE).resume();
    }
    await waitFor(async () => stack.fakes.apns.requests.some((r) => r.token === token), 'the code at APNs');
    const sent = stack.fakes.apns.requests.find((r) => r.token === token)!.payload as { aps: { alert: { title: string } }; data: unknown };
    expect(sent.aps.alert.title).toBe('Your code');
    expect(sent.data).toEqual({ order: 'A-1', z: 1, a: 2 });
  });

  it('counts installation ids the same way, and skips as any send does; every installation skipped, it completes in the worker', async () => {
    const { user } = await iosUser();
    const installation = (await ctx.db.query(`SELECT installation_id FROM installations WHERE user_id = $1`, [user]))[0].installation_id;
    const skipped = await send({ recipients: { installation_ids: [installation] }, options: { platforms: ['android'] } });
    expect(await rows(skipped)).toBe(1);
    // No batch to send: the fan-out job completes it (and tells the webhooks), as for any send.
    expect(await queue(SMALL_SEND_QUEUE).getJob(`deliver-${skipped}-0`)).toBeUndefined();
    const done = await notificationCompleted(ctx, tenant.token, skipped);
    expect(done.statistics).toMatchObject({ users: 1, installations: 1, skipped: 1, accepted: 0 });
    const trace = (await ctx.http().get(`/api/v1/notifications/${skipped}/deliveries`).set(bearer(tenant.token)).expect(200)).body.data;
    expect(trace).toEqual([expect.objectContaining({ status: 'skipped', reason: 'PlatformExcluded' })]);
  });

  it("falls back to the fan-out job while this week's partition of deliveries does not exist yet (no worker has made it)", async () => {
    const { user, token } = await iosUser();
    const [{ partition, bounds }] = await ctx.db.query(
      `SELECT c.oid::regclass::text AS partition, pg_get_expr(c.relpartbound, c.oid) AS bounds
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'deliveries'::regclass AND c.relpartbound IS NOT NULL
         AND now() >= (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz
         AND now() < (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz`,
    );
    await ctx.db.query(`ALTER TABLE deliveries DETACH PARTITION ${partition}`);
    let id: string;
    try {
      const notification = await accepted({ recipients: { user_ids: [user] } });
      id = notification.id;
      expect(notification.processing_started_at).toBeNull();
    } finally {
      await attachAgain(partition, bounds);
    }
    // No batch job: a fan-out job of its own, as for any send (not the one a small send without a batch gets).
    expect(await queue(SMALL_SEND_QUEUE).getJob(`deliver-${id!}-0`)).toBeUndefined();
    expect((await fanoutJob(id!))?.data).toEqual({ notificationId: id! });
    // That job (failed meanwhile, or not run yet) is queued again by the sweeper, as for any send.
    await waitFor(async () => {
      await ctx.get(SweeperService).sweep();
      return (await ctx.db.query(`SELECT completed_at FROM notifications WHERE id = $1`, [id]))[0].completed_at;
    }, 'the fallen-back send to complete');
    expect(stack.fakes.apns.requests.filter((r) => r.token === token)).toHaveLength(1);
  });

  /**
   * ATTACH beside the worker's fan-out of the fallen-back send can deadlock (PostgreSQL then rolls the
   * ATTACH back): both tables are locked first, in the order an insert takes them, and a deadlock is retried.
   */
  async function attachAgain(partition: string, bounds: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await ctx.db.transaction(async (manager) => {
          await manager.query(`LOCK TABLE deliveries, ${partition} IN ACCESS EXCLUSIVE MODE`);
          await manager.query(`ALTER TABLE deliveries ATTACH PARTITION ${partition} ${bounds}`);
        });
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
      }
    }
  }

  it('replays an Idempotency-Key without a second fan-out', async () => {
    const { user, token } = await iosUser();
    const key = `small-${randomUUID()}`;
    const id = await send({ recipients: { user_ids: [user] } }, { 'Idempotency-Key': key });
    expect(await send({ recipients: { user_ids: [user] } }, { 'Idempotency-Key': key })).toBe(id);
    await notificationCompleted(ctx, tenant.token, id);
    expect(await rows(id)).toBe(1);
    expect(stack.fakes.apns.requests.filter((r) => r.token === token)).toHaveLength(1);
  });

  it.each<[string, Record<string, unknown>]>([
    ['more than SMALL_SEND_MAX_RECIPIENTS (5) ids', { recipients: { user_ids: ['a', 'b', 'c', 'd', 'e', 'f'] } }],
    ['a marketing send (caps and quiet hours)', { recipients: { user_ids: ['a'] }, options: { category: 'marketing' } }],
    ['a throttled send', { recipients: { user_ids: ['a'] }, options: { throttle_per_minute: 600 } }],
    ['a send at a local time', { recipients: { user_ids: ['a'] }, options: { local_time: '09:00' } }],
    ['a tag', { recipients: { tags: ['vip'] } }],
  ])('leaves %s to the fan-out job', async (_name, body) => {
    const id = await send(body);
    expect((await fanoutJob(id))?.data).toEqual({ notificationId: id });
  });

  it('leaves a send_at ahead to the job of its instant, which fans it out as a small send when due (docs/api.md#due-sends)', async () => {
    const at = new Date(Date.now() + 3_600_000);
    const id = await send({ recipients: { user_ids: ['a'] }, send_at: at.toISOString() });
    expect(await fanoutJob(id)).toBeUndefined();
    expect((await queue(FANOUT_QUEUE).getJob(dueSendsJobId(at.getTime())))?.data).toEqual({ dueAt: at.getTime() });
  });
});
