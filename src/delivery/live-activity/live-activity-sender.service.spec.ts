import { newTestService } from '../../../test/support/new-test-service';
import { CredentialsService } from '../../credentials/credentials.service';
import { ProviderCredentials } from '../../credentials/provider-credentials';
import { LiveActivityJobs } from '../../queue/jobs';
import { ApnsProvider } from '../providers/apns.provider';
import { LiveActivityUpdatesRepository, LockedUpdate, LockedUpdateRow } from './live-activity-updates.repository';
import { apnsHeaders, apnsPayload, apnsTopicOf, PushContent } from '../providers/payloads';
import { liveActivityHeaders, liveActivityPayload } from '../providers/live-activity-payload';
import { broadcastOutcome } from './live-activity-broadcaster.service';
import { beforeSending, LiveActivitySenderService, messageOf, outcomeAfter } from './live-activity-sender.service';

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

/** The worker's rules for one Live Activity update (docs/api.md#live-activity-updates). */
describe('Live Activity updates: what an attempt decides', () => {
  it('sends a pending update newer than the last one APNs accepted', () => {
    expect(beforeSending(update())).toBe('send');
  });

  it('skips one older than an update APNs already accepted (Superseded), compared as numbers', () => {
    expect(beforeSending(update({ seq: '9', sent_seq: '10' }))).toBe('Superseded');
    expect(beforeSending(update({ seq: '10', sent_seq: '9' }))).toBe('send');
  });

  it('skips one whose activity ended, and leaves one already settled alone', () => {
    expect(beforeSending(update({ activity_status: 'ended' }))).toBe('ActivityEnded');
    expect(beforeSending(update({ status: 'accepted' }))).toBe('done');
    expect(beforeSending(update({ status: 'skipped', seq: '1' }))).toBe('done');
  });

  it("turns APNs' answers into the update's and the activity's outcome", () => {
    expect(outcomeAfter(update(), { kind: 'accepted' }, 5)).toMatchObject({ status: 'accepted', sent: true, endActivity: null, retry: false, attempts: 1 });
    expect(outcomeAfter(update({ event: 'end' }), { kind: 'accepted' }, 5)).toMatchObject({ endActivity: { status: 'ended', reason: null } });
    expect(outcomeAfter(update(), { kind: 'invalid', reason: 'Unregistered' }, 5)).toMatchObject({
      status: 'failed',
      reason: 'Unregistered',
      sent: false,
      endActivity: { status: 'ended', reason: 'Unregistered' },
    });
    expect(outcomeAfter(update(), { kind: 'retry', reason: 'TooManyRequests' }, 5)).toMatchObject({ status: 'pending', retry: true });
    expect(outcomeAfter(update({ attempts: 4 }), { kind: 'retry', reason: 'TooManyRequests' }, 5)).toMatchObject({ status: 'failed', retry: false });
    expect(outcomeAfter(update(), { kind: 'failed', reason: 'BadPayload' }, 5)).toMatchObject({ status: 'failed', endActivity: null });
  });

  it('stamps the message with the second of acceptance and dates in Unix seconds', () => {
    const message = messageOf(
      update({
        content: { content_state: { n: 1 }, alert: { title: 't' }, stale_date: '2030-01-01T00:00:00.000Z', dismissal_date: null, relevance_score: 0.2 },
      }),
    );
    expect(liveActivityPayload(message)).toEqual({
      aps: {
        event: 'update',
        timestamp: Date.UTC(2026, 10, 26, 12) / 1000,
        'content-state': { n: 1 },
        alert: { title: 't' },
        'stale-date': 1893456000,
        'relevance-score': 0.2,
      },
    });
    expect(liveActivityHeaders(message, 'com.example')).toEqual({
      'apns-push-type': 'liveactivity',
      'apns-topic': 'com.example.push-type.liveactivity',
      'apns-priority': '5',
    });
    expect(liveActivityHeaders({ priority: 'high' }, 'com.example')['apns-priority']).toBe('10');
  });
});

describe('a send that starts a Live Activity (docs/api.md#live-activity-starts)', () => {
  const content: PushContent = {
    id: 'n1',
    title: 'Order 42',
    body: 'Preparing',
    image_url: null,
    action_url: null,
    data: null,
    options: { live_activity: { attributes_type: 'DeliveryAttributes', attributes: { id: 42 }, content_state: { s: 'p' } } },
  };

  it('is an event start with the attributes, the alert and input-push-token, on the Live Activity topic', () => {
    expect(apnsPayload(content, 1_800_000_000)).toEqual({
      aps: {
        event: 'start',
        timestamp: 1_800_000_000,
        'content-state': { s: 'p' },
        'attributes-type': 'DeliveryAttributes',
        attributes: { id: 42 },
        alert: { title: 'Order 42', body: 'Preparing' },
        'input-push-token': 1,
      },
      notification_id: 'n1',
    });
    expect(apnsHeaders(content)['apns-push-type']).toBe('liveactivity');
    expect(apnsTopicOf(content, 'com.example')).toBe('com.example.push-type.liveactivity');
    expect(apnsTopicOf({ ...content, options: null }, 'com.example')).toBe('com.example');
  });

  it('listens to a channel with channel_id instead of asking for an update token', () => {
    const aps = apnsPayload({ ...content, options: { live_activity: { ...content.options!.live_activity!, channel_id: 'c' } } }).aps as Record<string, unknown>;
    expect(aps['input-push-channel']).toBe('c');
    expect(aps['input-push-token']).toBeUndefined();
  });
});

describe('a channel broadcast: what an attempt leaves (docs/api.md#live-activity-channels)', () => {
  it('is accepted, retried on 429 and 5xx until the attempts run out, and failed on a refusal', () => {
    expect(broadcastOutcome({ attempts: 0 }, { kind: 'accepted' }, 5)).toEqual({ status: 'accepted', reason: null, attempts: 1, retry: false });
    expect(broadcastOutcome({ attempts: 1 }, { kind: 'retry', reason: 'TooManyRequests' }, 5)).toEqual({
      status: 'pending',
      reason: 'TooManyRequests',
      attempts: 2,
      retry: true,
    });
    expect(broadcastOutcome({ attempts: 4 }, { kind: 'retry', reason: 'ServiceUnavailable' }, 5)).toMatchObject({ status: 'failed', retry: false });
    expect(broadcastOutcome({ attempts: 0 }, { kind: 'failed', reason: 'ChannelNotRegistered' }, 5)).toMatchObject({ status: 'failed', retry: false });
    expect(broadcastOutcome({ attempts: 0 }, { kind: 'invalid', reason: 'BadDeviceToken' }, 5)).toMatchObject({ status: 'failed', retry: false });
  });
});

const CREDENTIALS: ProviderCredentials = {
  appId: 'app',
  apns: { keyId: 'K', teamId: 'T', topic: 'com.example', production: false, privateKey: '' },
  fcm: null,
  vapid: null,
  hms: null,
};

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
