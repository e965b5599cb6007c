import { Queue } from 'bullmq';
import { FANOUT_QUEUE, fanoutJobId } from '../../src/common/queues';
import { notificationRowCompleted, sendToUsers } from '../support/notifications';
import { retentionPartitionsMade } from '../support/partitions';
import { ServiceProcess } from '../support/processes';
import { seedInstallations } from '../support/providers';
import { TEST_REDIS_URL } from '../support/services';
import { fakeProvidersWorkerEnv, useApiWithFakeProviders } from '../support/use-api-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';

/** Every queue but the small sends': the campaign lane. */
const CAMPAIGN_QUEUES = 'fanout,deliver,maintenance,webhook,live-activity';

/**
 * docs/operations.md "A worker process per lane": WORKER_QUEUES picks the queues a worker process
 * takes jobs from. A process given `deliver-small` alone sends a one-time code while no process runs
 * the campaign's queues; the campaign waits, untouched, for one that does. Both are the built
 * service in APP_MODE=worker, beside an APP_MODE=api app in this process.
 */
describe('WORKER_QUEUES', () => {
  const stack = useApiWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Worker queues');

  it('a process given deliver-small alone sends small sends and leaves the campaign queues alone', async () => {
    const workerEnv = fakeProvidersWorkerEnv(ctx, stack.fakes);
    const seeded = await seedInstallations(ctx, tenant.appId, stack.fakes, 20, 'lane', 'ios');
    // A campaign-lane process makes retention's partitions first, so the code takes the small-send path.
    const first = ServiceProcess.start({ ...workerEnv, WORKER_QUEUES: CAMPAIGN_QUEUES });
    await first.waitForOutput(/Started in worker mode/);
    await retentionPartitionsMade(ctx);
    await first.stop('SIGTERM');

    const small = ServiceProcess.start({ ...workerEnv, WORKER_QUEUES: 'deliver-small' });
    let campaign: ServiceProcess | undefined;
    const sent = (text: string) => stack.fakes.apns.requests.filter((r) => JSON.stringify(r.payload).includes(text));
    try {
      await small.waitForOutput(/Started in worker mode \(queues: deliver-small\)/);
      const campaignId = await sendToUsers(
        ctx,
        tenant.token,
        seeded.map((s) => s.userId),
        { title: 'Campaign', body: 'To twenty users' },
      );
      const codeId = await sendToUsers(ctx, tenant.token, [seeded[0].userId], { title: 'Your code', body: '123456' });

      // The code reaches its provider through the deliver-small process alone, and completes there:
      // no fan-out job follows a small send with a batch (docs/api.md#small-sends).
      await waitFor(async () => sent('123456').length === 1 || null, 'the code to reach its provider');
      expect(await notificationRowCompleted(ctx, codeId, 'the code to complete')).toMatchObject({ stat_accepted: 1 });
      // The campaign's fan-out job waits: no running process takes the fanout queue.
      const queue = new Queue(FANOUT_QUEUE, { connection: { url: TEST_REDIS_URL }, prefix: ctx.queuePrefix });
      try {
        expect(await queue.getJobState(fanoutJobId(campaignId))).toBe('waiting');
      } finally {
        await queue.close();
      }
      const [{ processing_started_at }] = await ctx.db.query(`SELECT processing_started_at FROM notifications WHERE id = $1`, [campaignId]);
      expect(processing_started_at).toBeNull();
      expect(sent('To twenty users')).toHaveLength(0);

      // A campaign-lane process takes it from there: the campaign is sent.
      campaign = ServiceProcess.start({ ...workerEnv, WORKER_QUEUES: CAMPAIGN_QUEUES });
      await campaign.waitForOutput(/Started in worker mode \(queues: fanout, deliver, maintenance, webhook, live-activity\)/);
      expect(await notificationRowCompleted(ctx, campaignId, 'the campaign to complete')).toMatchObject({ stat_accepted: 20 });
      expect(sent('To twenty users')).toHaveLength(20);
      expect(sent('123456')).toHaveLength(1);
    } finally {
      await Promise.all([small.stop('SIGTERM'), campaign?.stop('SIGTERM')]);
    }
  });
});
