import { DUE_BATCHES_JOB, DueBatchesJob, dueSendsJobId, FANOUT_QUEUE, SMALL_SEND_QUEUE } from '../../src/common/queues';
import { DueSendsRepository } from '../../src/delivery/due-sends/due-sends.repository';
import { DueSendsService } from '../../src/delivery/due-sends/due-sends.service';
import { SweeperService } from '../../src/delivery/sweeper/sweeper.service';
import { bearer } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { acceptedPerAddress, seedInstallations, SeededInstallation } from '../support/providers';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { testQueue } from '../support/wait-for-queues';
import { waitFor } from '../support/wait-for';

/**
 * docs/api.md#due-sends: sends due at one instant are claimed in groups, app by app. No wall clock:
 * every send is due an hour ahead, and the test moves its send_at back (PostgreSQL's clock decides
 * what is due) and then either lets the instant's job run or claims groups itself. The sweeper runs
 * only when a test calls it.
 */
describe('sends due at one instant (docs/api.md#due-sends)', () => {
  const stack = useAppWithFakeProviders({ SWEEP_INTERVAL_MS: '3600000' });
  const { ctx } = stack;
  const a = useTenantWithProviders(stack, 'Due A');
  const b = useTenantWithProviders(stack, 'Due B');

  const dueAt = new Date(Date.now() + 3_600_000);
  let seeded = 0;
  const devices = async (appId: string, count: number) => seedInstallations(ctx, appId, stack.fakes, count, `due-${seeded++}`, 'ios');
  const schedule = async (token: string, users: string[], sendAt = dueAt) => {
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(token))
      .send({ recipients: { user_ids: users }, notification: { title: 'Due', body: 'Now' }, send_at: sendAt.toISOString() })
      .expect(202);
    return res.body.data.id as string;
  };
  /** As if the hour had passed for these sends (PostgreSQL's side only: their job stays delayed). */
  const comeDue = (ids: string[]) =>
    ctx.db.query(
      `UPDATE notifications SET send_at = send_at - interval '1 hour 1 minute', created_at = created_at - interval '1 hour 1 minute' WHERE id = ANY($1)`,
      [ids],
    );
  const started = async (ids: string[]) =>
    (await ctx.db.query(`SELECT id FROM notifications WHERE id = ANY($1) AND processing_started_at IS NOT NULL`, [ids])).map((r: { id: string }) => r.id);
  const deliveredOnce = (installations: SeededInstallation[]) => {
    const accepted = acceptedPerAddress(stack.fakes);
    return installations.map((i) => accepted.get(i.address) ?? 0);
  };
  const service = () => ctx.get(DueSendsService);

  afterEach(() => {
    service().groupSize = 100;
  });

  it('delivers every send due at the instant once, from the instant’s one job, in groups', async () => {
    const users = await devices(a.appId, 23);
    const ids: string[] = [];
    for (const user of users) ids.push(await schedule(a.token, [user.userId]));
    const queue = testQueue(ctx, FANOUT_QUEUE);
    try {
      // One job for the instant, however many sends; none of the sends has a fan-out job of its own.
      const job = await queue.getJob(dueSendsJobId(dueAt.getTime()));
      expect(await job?.getState()).toBe('delayed');
      expect(await queue.getJob(`fanout-${ids[0]}`)).toBeUndefined();
      service().groupSize = 5;
      await comeDue(ids);
      await job!.promote();
      for (const id of ids) await notificationCompleted(ctx, a.token, id);
    } finally {
      await queue.close();
    }
    expect(deliveredOnce(users)).toEqual(users.map(() => 1));
    // Their batches went as one deliver-due job per group, none as a job of its own.
    const small = testQueue(ctx, SMALL_SEND_QUEUE);
    try {
      const jobs = await small.getJobs(['completed', 'active', 'waiting']);
      const grouped = jobs.filter((job) => job.name === DUE_BATCHES_JOB && (job.data as DueBatchesJob).batches.some((b) => ids.includes(b.notificationId)));
      expect(grouped.length).toBeGreaterThanOrEqual(5);
      expect(grouped.flatMap((job) => (job.data as DueBatchesJob).batches.map((b) => b.notificationId)).sort()).toEqual([...ids].sort());
      expect(jobs.filter((job) => job.name !== DUE_BATCHES_JOB && ids.includes((job.data as { notificationId?: string }).notificationId ?? ''))).toEqual([]);
    } finally {
      await small.close();
    }
    const rows = await ctx.db.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE d.status = 'accepted')::int AS accepted FROM deliveries d WHERE d.notification_id = ANY($1)`,
      [ids],
    );
    expect(rows[0]).toEqual({ n: 23, accepted: 23 });
  });

  it("claims a second app's due send in the first group, before the first app's many", async () => {
    const many = await devices(a.appId, 12);
    const [one] = await devices(b.appId, 1);
    const aIds: string[] = [];
    for (const user of many) aIds.push(await schedule(a.token, [user.userId]));
    // Larger than a small send (docs/api.md#small-sends): queued as a fan-out job, in the claim's order.
    const bLarge = await devices(b.appId, 6);
    const bIds = [
      await schedule(b.token, [one.userId]),
      await schedule(
        b.token,
        bLarge.map((u) => u.userId),
      ),
    ];
    await comeDue([...aIds, ...bIds]);
    service().groupSize = 3;
    await service().claimGroup();
    // The first group: each app's first due send, then A's second; B's second (turn 2) before A's third.
    expect((await started(bIds)).sort()).toEqual([bIds[0]].sort());
    expect(await started(aIds)).toHaveLength(2);
    await service().claimGroup();
    expect((await started(bIds)).sort()).toEqual([...bIds].sort());
    expect(await started(aIds)).toHaveLength(4);
    await service().drain();
    for (const id of aIds) await notificationCompleted(ctx, a.token, id);
    for (const id of bIds) await notificationCompleted(ctx, b.token, id);
    expect(deliveredOnce([...many, one, ...bLarge])).toEqual([...many, one, ...bLarge].map(() => 1));
  });

  it('a cancel that meets a claimed group waits for it, then nothing of that send goes out', async () => {
    const users = await devices(a.appId, 3);
    const ids: string[] = [];
    for (const user of users) ids.push(await schedule(a.token, [user.userId]));
    await comeDue(ids);
    const repository = ctx.get(DueSendsRepository);
    const group = repository.group.bind(repository);
    let cancel: Promise<{ status: number }> | undefined;
    const spy = jest.spyOn(repository, 'group').mockImplementationOnce((limit, work) =>
      group(limit, async (rows, tx) => {
        const result = await work(rows, tx);
        // The group holds its rows: the cancel's update waits on the lock until the group commits.
        cancel = ctx
          .http()
          .post(`/api/v1/notifications/${ids[1]}/cancel`)
          .set(bearer(a.token))
          .then((res) => res);
        await waitFor(async () => {
          const [waiting] = await ctx.db.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%SET canceled_at = now()%'`);
          return waiting;
        }, 'the cancel to wait for the group');
        return result;
      }),
    );
    try {
      await service().drain();
    } finally {
      spy.mockRestore();
    }
    expect((await cancel!).status).toBe(200);
    const canceled = await notificationCompleted(ctx, a.token, ids[1]);
    expect(canceled.canceled_at).not.toBeNull();
    expect(canceled.statistics).toMatchObject({ installations: 1, accepted: 0, skipped: 1 });
    for (const id of [ids[0], ids[2]]) await notificationCompleted(ctx, a.token, id);
    expect(deliveredOnce(users)).toEqual([1, 0, 1]);
  });

  it('a send cancelled before its instant is not claimed, and sends nothing', async () => {
    const [user] = await devices(a.appId, 1);
    const id = await schedule(a.token, [user.userId]);
    await ctx.http().post(`/api/v1/notifications/${id}/cancel`).set(bearer(a.token)).expect(200);
    await comeDue([id]);
    await service().drain();
    const done = await notificationCompleted(ctx, a.token, id);
    expect(done.statistics).toMatchObject({ installations: 1, accepted: 0, skipped: 1 });
    expect(deliveredOnce([user])).toEqual([0]);
  });

  it('a claim whose connection is killed mid-group loses nothing: the sweeper queues a claim again', async () => {
    const users = await devices(a.appId, 4);
    const large = await devices(a.appId, 6);
    const ids: string[] = [];
    for (const user of users) ids.push(await schedule(a.token, [user.userId]));
    ids.push(
      await schedule(
        a.token,
        large.map((u) => u.userId),
      ),
    );
    await comeDue(ids);
    // The group's connection dies after its claim and part of its fan-outs (a worker killed mid-claim).
    const repository = ctx.get(DueSendsRepository);
    await expect(
      repository.group(3, async (rows, tx) => {
        expect(rows).toHaveLength(3);
        await tx.query(`SELECT pg_terminate_backend(pg_backend_pid())`);
      }),
    ).rejects.toThrow();
    expect(await started(ids)).toEqual([]);
    // The sweeper finds scheduled sends no claim took and queues a due-sends job for them.
    const report = await ctx.get(SweeperService).sweep();
    expect(report.fanoutsQueued).toBe(ids.length);
    for (const id of ids) await notificationCompleted(ctx, a.token, id);
    expect(deliveredOnce([...users, ...large])).toEqual([...users, ...large].map(() => 1));
  });

  it('a claim committed without its jobs queued (killed right after) is finished by the sweeper', async () => {
    const small = await devices(a.appId, 1);
    const large = await devices(a.appId, 6);
    const ids = [
      await schedule(a.token, [small[0].userId]),
      await schedule(
        a.token,
        large.map((u) => u.userId),
      ),
    ];
    await comeDue(ids);
    // Claimed and committed, and no job queued after: the worker died between the commit and the queue.
    await ctx.get(DueSendsRepository).group(10, async (rows) => expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort()));
    expect((await started(ids)).sort()).toEqual([...ids].sort());
    // Started sends not fanned out are owed a fan-out job each: the sweeper's (docs/api.md#scheduling).
    const report = await ctx.get(SweeperService).sweep();
    expect(report.fanoutsQueued).toBe(2);
    for (const id of ids) await notificationCompleted(ctx, a.token, id);
    expect(deliveredOnce([...small, ...large])).toEqual([...small, ...large].map(() => 1));
  });
});
