import type { Job } from 'bullmq';
import { newTestService } from '../../../test/support/new-test-service';
import { FanoutJob } from '../../common/queues';
import { DeliverJobs, FanoutJobs, LiveActivityBroadcastJobs, LiveActivityJobs } from '../../queue/jobs';
import { CompletionReportService } from '../completion-report.service';
import { DeliveriesRepository } from '../deliver/deliveries.repository';
import { LiveActivityBroadcastsRepository } from '../live-activity/live-activity-broadcasts.repository';
import { LiveActivityUpdatesRepository } from '../live-activity/live-activity-updates.repository';
import { FairSharesService } from '../fair-shares/fair-shares.service';
import { FanoutSharesService } from '../fair-shares/fanout-shares.service';
import { SweeperRepository } from './sweeper.repository';
import { SweeperService } from './sweeper.service';

/** A fan-out job as Redis keeps it, in `state`; records what the sweeper did with it. */
const job = (state: string, data: Partial<FanoutJob> = {}) => {
  const done: string[] = [];
  const handle = {
    data: { notificationId: 'n', ...data },
    getState: async () => state,
    retry: async () => void done.push('retry'),
    promote: async () => void done.push('promote'),
    remove: async () => void done.push('remove'),
  };
  return { handle: handle as unknown as Job<FanoutJob>, done };
};

/** What the sweeper queues again from what PostgreSQL says is owed (docs/operations.md "Redis"). */
describe('SweeperService', () => {
  const setup = () => {
    const built = newTestService(SweeperService, { env: { DELIVERY_STUCK_MS: 120_000 } });
    const { mocks } = built;
    const sweeps = mocks.get(SweeperRepository);
    sweeps.unfannedNotifications.mockResolvedValue([]);
    sweeps.resetStuck.mockResolvedValue([]);
    sweeps.overdueBatches.mockResolvedValue([]);
    sweeps.purgeIdempotencyKeys.mockResolvedValue(0);
    mocks.get(DeliveriesRepository).completeFinished.mockResolvedValue([]);
    mocks.get(LiveActivityUpdatesRepository).owed.mockResolvedValue([]);
    mocks.get(LiveActivityBroadcastsRepository).owed.mockResolvedValue([]);
    mocks.get(FairSharesService).freeAbandoned.mockResolvedValue(0);
    mocks.get(FairSharesService).requeueLost.mockResolvedValue(0);
    mocks.get(FanoutSharesService).freeEnded.mockResolvedValue(0);
    return { ...built, sweeps };
  };

  it('queues each late fan-out by the state of its job: retries a failed one, promotes one held past its time, adds a lost or completed one', async () => {
    const { sut, mocks, sweeps } = setup();
    const jobs = {
      failed: job('failed'),
      held: job('delayed'),
      paused: job('delayed', { pausedUntil: Date.now() + 60_000 }),
      completed: job('completed'),
      active: job('active'),
      waiting: job('waiting'),
    };
    sweeps.unfannedNotifications.mockResolvedValue([...Object.keys(jobs), 'lost'].map((id) => ({ id, claimable: false })));
    const fanouts = mocks.get(FanoutJobs);
    fanouts.find.mockImplementation(async (id: string) => jobs[id as keyof typeof jobs]?.handle);

    const report = await sut.sweep();
    expect(sweeps.unfannedNotifications).toHaveBeenCalledWith(5_000, 1000);
    expect(Object.fromEntries(Object.entries(jobs).map(([id, j]) => [id, j.done]))).toEqual({
      failed: ['retry'],
      held: ['promote'],
      paused: [],
      completed: ['remove'],
      active: [],
      waiting: [],
    });
    expect(fanouts.add.mock.calls).toEqual([['completed'], ['lost']]);
    expect(fanouts.addDue).not.toHaveBeenCalled();
    expect(report.fanoutsQueued).toBe(4);
  });

  it('queues one due-sends job, under a fresh id, for the scheduled sends no claim took (docs/api.md#due-sends)', async () => {
    const { sut, mocks, sweeps } = setup();
    sweeps.unfannedNotifications.mockResolvedValue([
      { id: 'due-1', claimable: true },
      { id: 'due-2', claimable: true },
    ]);
    const report = await sut.sweep();
    const fanouts = mocks.get(FanoutJobs);
    expect(fanouts.addDue).toHaveBeenCalledTimes(1);
    const [dueAt, suffix] = fanouts.addDue.mock.calls[0];
    expect(suffix).toBe(`s${dueAt}`);
    expect(fanouts.find).not.toHaveBeenCalled();
    expect(report.fanoutsQueued).toBe(2);
  });

  it('puts deliveries stuck "sending" past DELIVERY_STUCK_MS back, and queues their batches and the overdue ones once each, under fresh job ids', async () => {
    const { sut, mocks, sweeps } = setup();
    sweeps.resetStuck.mockResolvedValue([
      { notification_id: 'a', batch: 0 },
      { notification_id: 'a', batch: 0 },
      { notification_id: 'a', batch: 1 },
    ]);
    sweeps.overdueBatches.mockResolvedValue([
      { notification_id: 'a', batch: 1 },
      { notification_id: 'b', batch: 3 },
    ]);

    const report = await sut.sweep();
    expect(sweeps.resetStuck).toHaveBeenCalledWith(120);
    expect(sweeps.overdueBatches).toHaveBeenCalledWith(120, 1000);
    const [batches, suffix] = mocks.get(DeliverJobs).addBatches.mock.calls[0];
    expect(batches).toEqual([
      { notificationId: 'a', batch: 0 },
      { notificationId: 'a', batch: 1 },
      { notificationId: 'b', batch: 3 },
    ]);
    expect(suffix).toMatch(/^s\d+$/);
    expect(report).toMatchObject({ stuckReset: 3, batchesQueued: 3 });
  });

  it('frees the window places of jobs dead past DELIVERY_STUCK_MS and counts the batches they let through (docs/api.md#fair-sharing)', async () => {
    const { sut, mocks } = setup();
    mocks.get(FairSharesService).freeAbandoned.mockResolvedValue(2);
    expect((await sut.sweep()).batchesQueued).toBe(2);
    expect(mocks.get(FairSharesService).freeAbandoned).toHaveBeenCalledWith(120);
  });

  it('queues the jobs of window places queued over 5 s ago that no live job holds (docs/api.md#fair-sharing)', async () => {
    const { sut, mocks } = setup();
    mocks.get(FairSharesService).requeueLost.mockResolvedValue(3);
    expect((await sut.sweep()).batchesQueued).toBe(3);
    expect(mocks.get(FairSharesService).requeueLost).toHaveBeenCalledWith(5000, 1000);
  });

  it('frees the fan-out places of sends fanned out without giving them back, and counts the fan-outs they let through', async () => {
    const { sut, mocks } = setup();
    mocks.get(FanoutSharesService).freeEnded.mockResolvedValue(2);
    expect((await sut.sweep()).fanoutsQueued).toBe(2);
  });

  it('queues nothing when nothing is owed', async () => {
    const { sut, mocks } = setup();
    expect(await sut.sweep()).toEqual({
      fanoutsQueued: 0,
      stuckReset: 0,
      batchesQueued: 0,
      completed: 0,
      idempotencyKeysPurged: 0,
      liveActivityUpdatesQueued: 0,
      liveActivityBroadcastsQueued: 0,
    });
    expect(mocks.get(DeliverJobs).addBatches).not.toHaveBeenCalled();
    expect(mocks.get(CompletionReportService).completed).toHaveBeenCalledWith([]);
  });

  it('completes finished notifications and reports them; purges idempotency keys', async () => {
    const { sut, mocks, sweeps } = setup();
    mocks.get(DeliveriesRepository).completeFinished.mockResolvedValue(['x', 'y']);
    sweeps.purgeIdempotencyKeys.mockResolvedValue(7);
    expect(await sut.sweep()).toMatchObject({ completed: 2, idempotencyKeysPurged: 7 });
    expect(mocks.get(CompletionReportService).completed).toHaveBeenCalledWith(['x', 'y']);
  });

  it('queues the next attempt of Live Activity updates pending for 30 s with no job, counting those actually queued', async () => {
    const { sut, mocks } = setup();
    mocks.get(LiveActivityUpdatesRepository).owed.mockResolvedValue([
      { id: 'u1', attempts: 0 },
      { id: 'u2', attempts: 2 },
    ]);
    const requeue = mocks.get(LiveActivityJobs).requeue.mockResolvedValueOnce(true).mockResolvedValueOnce(false);
    expect((await sut.sweep()).liveActivityUpdatesQueued).toBe(1);
    expect(mocks.get(LiveActivityUpdatesRepository).owed).toHaveBeenCalledWith(30_000, 1000, 'pending');
    expect(requeue.mock.calls).toEqual([
      ['u1', 1],
      ['u2', 3],
    ]);
  });

  it('queues the next attempt of Live Activity broadcasts pending for 30 s with no job, counting those actually queued', async () => {
    const { sut, mocks } = setup();
    mocks.get(LiveActivityBroadcastsRepository).owed.mockResolvedValue([
      { id: 'b1', attempts: 1 },
      { id: 'b2', attempts: 0 },
    ]);
    const requeue = mocks.get(LiveActivityBroadcastJobs).requeue.mockResolvedValueOnce(false).mockResolvedValueOnce(true);
    expect((await sut.sweep()).liveActivityBroadcastsQueued).toBe(1);
    expect(mocks.get(LiveActivityBroadcastsRepository).owed).toHaveBeenCalledWith(30_000, 1000, 'pending');
    expect(requeue.mock.calls).toEqual([
      ['b1', 2],
      ['b2', 1],
    ]);
  });
});
