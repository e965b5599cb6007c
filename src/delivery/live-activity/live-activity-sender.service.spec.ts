import { newTestService } from '../../../test/support/new-test-service';
import { CredentialsService } from '../../credentials/credentials.service';
import { ProviderCredentials } from '../../credentials/provider-credentials';
import { LiveActivityJobs } from '../../queue/jobs';
import { ApnsProvider } from '../providers/apns.provider';
import { LiveActivityUpdatesRepository, LockedUpdate, LockedUpdateRow } from './live-activity-updates.repository';
import { LiveActivitySenderService } from './live-activity-sender.service';

const CREDENTIALS: ProviderCredentials = {
  appId: 'app',
  apns: { keyId: 'K', teamId: 'T', topic: 'com.example', production: false, privateKey: '' },
  fcm: null,
  vapid: null,
};
const update = (extra: Partial<LockedUpdateRow> = {}): LockedUpdateRow => ({
  id: 'u',
  seq: '5',
  event: 'update',
  content: { content_state: { n: 5 }, alert: null, stale_date: null, dismissal_date: null, relevance_score: null },
  priority: 'normal',
  accepted_at: new Date('2026-11-26T12:00:00.900Z'),
  status: 'pending',
  attempts: 0,
  live_activity_id: 'a',
  app_id: 'app',
  push_token: 'ab',
  activity_status: 'active',
  sent_seq: '4',
  ...extra,
});

/** One attempt of a Live Activity update (docs/api.md#live-activity-updates), with storage, APNs and the queue faked. */
describe('LiveActivitySenderService', () => {
  const setup = (row: LockedUpdateRow | undefined) => {
    const built = newTestService(LiveActivitySenderService, { env: { DELIVERY_MAX_ATTEMPTS: 3, DELIVERY_RETRY_BASE_MS: 1000, DELIVERY_RETRY_MAX_MS: 60_000 } });
    const { mocks } = built;
    // The statements run while the activity's lock is held.
    const locked = { read: jest.fn().mockResolvedValue(row), record: jest.fn() };
    mocks.get(LiveActivityUpdatesRepository).locked.mockImplementation((_id, attempt) => attempt(locked as unknown as LockedUpdate));
    mocks.get(CredentialsService).forDelivery.mockResolvedValue(CREDENTIALS);
    return { ...built, locked, apns: mocks.get(ApnsProvider), jobs: mocks.get(LiveActivityJobs) };
  };

  it("sends the newest pending update to its activity's token and records APNs' acceptance", async () => {
    const { sut, locked, apns, jobs, mocks } = setup(update());
    apns.sendLiveActivity.mockResolvedValue({ kind: 'accepted' });
    await sut.attempt('u');
    expect(mocks.get(CredentialsService).forDelivery).toHaveBeenCalledWith('app');
    expect(apns.sendLiveActivity).toHaveBeenCalledWith(
      CREDENTIALS,
      'ab',
      expect.objectContaining({ event: 'update', contentState: { n: 5 }, timestamp: Math.floor(Date.parse('2026-11-26T12:00:00.900Z') / 1000) }),
    );
    expect(locked.record).toHaveBeenCalledWith('u', { status: 'accepted', reason: null, attempts: 1, sent: true, endActivity: null, retry: false });
    expect(jobs.add).not.toHaveBeenCalled();
  });

  it('sends nothing for an update gone or no longer pending (a repeated job), and skips a superseded one or one of an ended activity', async () => {
    for (const row of [undefined, update({ status: 'accepted' })]) {
      const { sut, locked, apns } = setup(row);
      await sut.attempt('u');
      expect([apns.sendLiveActivity.mock.calls.length, locked.record.mock.calls.length]).toEqual([0, 0]);
    }
    for (const [row, reason] of [
      [update({ seq: '3', sent_seq: '4' }), 'Superseded'],
      [update({ activity_status: 'ended' }), 'ActivityEnded'],
    ] as const) {
      const { sut, locked, apns } = setup(row);
      await sut.attempt('u');
      expect(apns.sendLiveActivity).not.toHaveBeenCalled();
      expect(locked.record).toHaveBeenCalledWith('u', { status: 'skipped', reason, attempts: 0, sent: false, endActivity: null });
    }
  });

  it('puts a retryable answer back to pending and queues the next attempt after the backoff (Retry-After when longer), once recorded', async () => {
    const { sut, locked, apns, jobs } = setup(update({ attempts: 1 }));
    apns.sendLiveActivity.mockResolvedValue({ kind: 'retry', reason: 'TooManyRequests', retryAfterMs: 30_000 });
    await sut.attempt('u');
    expect(locked.record).toHaveBeenCalledWith('u', { status: 'pending', reason: 'TooManyRequests', attempts: 2, sent: false, endActivity: null, retry: true });
    expect(jobs.add).toHaveBeenCalledWith('u', 3, 30_000);
    expect(locked.record.mock.invocationCallOrder[0]).toBeLessThan(jobs.add.mock.invocationCallOrder[0]);

    const first = setup(update());
    first.apns.sendLiveActivity.mockResolvedValue({ kind: 'retry', reason: 'ServiceUnavailable' });
    await first.sut.attempt('u');
    const [, attempt, delayMs] = first.jobs.add.mock.calls[0];
    expect(attempt).toBe(2);
    // DELIVERY_RETRY_BASE_MS, +-20%.
    expect(delayMs).toBeGreaterThanOrEqual(800);
    expect(delayMs).toBeLessThanOrEqual(1200);
  });

  it('fails the update once DELIVERY_MAX_ATTEMPTS are used, and ends the activity when APNs refuses its token', async () => {
    const last = setup(update({ attempts: 2 }));
    last.apns.sendLiveActivity.mockResolvedValue({ kind: 'retry', reason: 'ServiceUnavailable' });
    await last.sut.attempt('u');
    expect(last.locked.record).toHaveBeenCalledWith('u', {
      status: 'failed',
      reason: 'ServiceUnavailable',
      attempts: 3,
      sent: false,
      endActivity: null,
      retry: false,
    });
    expect(last.jobs.add).not.toHaveBeenCalled();

    const refused = setup(update());
    refused.apns.sendLiveActivity.mockResolvedValue({ kind: 'invalid', reason: 'BadDeviceToken' });
    await refused.sut.attempt('u');
    expect(refused.locked.record).toHaveBeenCalledWith('u', {
      status: 'failed',
      reason: 'BadDeviceToken',
      attempts: 1,
      sent: false,
      endActivity: { status: 'ended', reason: 'BadDeviceToken' },
      retry: false,
    });
  });
});
