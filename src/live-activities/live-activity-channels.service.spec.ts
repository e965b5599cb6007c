import { newTestService } from '../../test/support/new-test-service';
import { NotFoundError, StateConflictError } from '../common/errors';
import { CredentialsService } from '../credentials/credentials.service';
import { ProviderCredentials } from '../credentials/provider-credentials';
import { ApnsProvider } from '../delivery/providers/apns.provider';
import { LiveActivityBroadcastJobs } from '../queue/jobs';
import { LiveActivitiesRepository } from './live-activities.repository';
import { LiveActivityChannelsRepository } from './live-activity-channels.repository';
import { LiveActivityChannelsService } from './live-activity-channels.service';

const APP = 'app-1';
const CREDENTIALS: ProviderCredentials = {
  appId: APP,
  apns: { keyId: 'K', teamId: 'T', topic: 'com.example', production: false, privateKey: '' },
  fcm: null,
  vapid: null,
  hms: null,
};
const channelRow = { id: 'ch-1', storage: 'most_recent', created_at: new Date('2026-11-27T08:00:00Z') };
const answer = (status: number, body = '', headers: Record<string, string> = {}) => ({ status, headers, body });

/** Broadcast channels (docs/api.md#live-activity-channels): what APNs' answers mean, with APNs and storage faked. */
describe('LiveActivityChannelsService', () => {
  const setup = () => {
    const built = newTestService(LiveActivityChannelsService);
    const { mocks } = built;
    mocks.get(CredentialsService).forDelivery.mockResolvedValue(CREDENTIALS);
    return { ...built, apns: mocks.get(ApnsProvider), activities: mocks.get(LiveActivitiesRepository) };
  };

  it('creates the channel at APNs with its storage policy, and keeps the id APNs gave it', async () => {
    const { sut, apns, activities } = setup();
    apns.channelRequest.mockResolvedValue(answer(201, '', { 'apns-channel-id': 'ch-1' }));
    activities.insertChannel.mockResolvedValue(channelRow);

    expect(await sut.create(APP, 'most_recent')).toEqual({ id: 'ch-1', storage: 'most_recent', created_at: '2026-11-27T08:00:00.000Z' });
    const [credentials, method, resource, headers, body] = apns.channelRequest.mock.calls[0];
    expect([credentials, method, resource, headers]).toEqual([CREDENTIALS, 'POST', 'channels', {}]);
    expect(JSON.parse(body!)).toEqual({ 'message-storage-policy': 1, 'push-type': 'LiveActivity' });
    expect(activities.insertChannel).toHaveBeenCalledWith(APP, 'ch-1', 'most_recent');

    await sut.create(APP, 'none');
    expect(JSON.parse(apns.channelRequest.mock.calls[1][4]!)['message-storage-policy']).toBe(0);
  });

  it("answers 409 with APNs' reason when APNs refuses, fails or is not configured, storing nothing", async () => {
    const { sut, apns, activities } = setup();
    apns.channelRequest.mockResolvedValueOnce(answer(400, '{"reason":"BadChannelStoragePolicy"}'));
    await expect(sut.create(APP, 'most_recent')).rejects.toThrow(new StateConflictError('APNs did not create the channel: BadChannelStoragePolicy.'));
    apns.channelRequest.mockResolvedValueOnce(answer(500, 'oops'));
    await expect(sut.create(APP, 'most_recent')).rejects.toThrow('APNs did not create the channel: HTTP 500.');
    apns.channelRequest.mockResolvedValueOnce({ failure: 'ECONNRESET' });
    await expect(sut.create(APP, 'most_recent')).rejects.toThrow('APNs did not create the channel: ECONNRESET.');
    apns.channelRequest.mockResolvedValueOnce({ reason: 'ApnsNotConfigured' });
    await expect(sut.create(APP, 'most_recent')).rejects.toThrow('APNs did not create the channel: ApnsNotConfigured.');
    // A 201 without the channel id is no channel either.
    apns.channelRequest.mockResolvedValueOnce(answer(201));
    await expect(sut.create(APP, 'most_recent')).rejects.toBeInstanceOf(StateConflictError);
    expect(activities.insertChannel).not.toHaveBeenCalled();
  });

  it('deletes at APNs then here; one APNs no longer knows is deleted here all the same; an unknown one is 404', async () => {
    const { sut, apns, activities } = setup();
    activities.findChannel.mockResolvedValueOnce(undefined);
    await expect(sut.remove(APP, 'nope')).rejects.toBeInstanceOf(NotFoundError);
    expect(apns.channelRequest).not.toHaveBeenCalled();

    activities.findChannel.mockResolvedValue(channelRow);
    apns.channelRequest.mockResolvedValueOnce(answer(204));
    await sut.remove(APP, 'ch-1');
    expect(apns.channelRequest).toHaveBeenCalledWith(CREDENTIALS, 'DELETE', 'channels', { 'apns-channel-id': 'ch-1' });
    apns.channelRequest.mockResolvedValueOnce(answer(404, '{"reason":"ChannelNotRegistered"}'));
    await sut.remove(APP, 'ch-1');
    expect(activities.deleteChannel.mock.calls).toEqual([
      [APP, 'ch-1'],
      [APP, 'ch-1'],
    ]);

    apns.channelRequest.mockResolvedValueOnce(answer(404, '{"reason":"BadPath"}'));
    await expect(sut.remove(APP, 'ch-1')).rejects.toThrow('APNs did not delete the channel: BadPath.');
    expect(activities.deleteChannel).toHaveBeenCalledTimes(2);
  });

  it("stores a broadcast stamped with the service's clock and queues its first attempt; 404 for a channel the app does not have", async () => {
    const { sut, apns, mocks, clock } = setup();
    clock.advance(86_400_000);
    const broadcasts = mocks.get(LiveActivityChannelsRepository);
    const row = {
      id: 'b-1',
      channel_id: 'ch-1',
      event: 'update',
      status: 'pending',
      reason: null,
      attempts: 0,
      accepted_at: new Date(clock.now()),
    };
    broadcasts.accept.mockResolvedValueOnce(row as never).mockResolvedValueOnce(undefined);
    const dto = { event: 'update', content_state: { score: '2-1' } } as never;

    const sent = await sut.broadcast(APP, 'ch-1', dto, {});
    expect(JSON.parse(sent.body)).toMatchObject({ data: { id: 'b-1', channel_id: 'ch-1', status: 'pending', created_at: row.accepted_at.toISOString() } });
    expect(sent.replayed).toBe(false);
    const [app, channel, stored] = broadcasts.accept.mock.calls[0];
    expect([app, channel]).toEqual([APP, 'ch-1']);
    expect(stored).toMatchObject({ event: 'update' });
    expect((stored as { acceptedAt: Date }).acceptedAt.getTime() - Date.now()).toBeGreaterThan(86_000_000);
    expect(mocks.get(LiveActivityBroadcastJobs).add).toHaveBeenCalledWith('b-1', 1);
    // The worker sends it, not the request.
    expect(apns.broadcast).not.toHaveBeenCalled();

    await expect(sut.broadcast(APP, 'nope', dto, {})).rejects.toBeInstanceOf(NotFoundError);
    expect(mocks.get(LiveActivityBroadcastJobs).add).toHaveBeenCalledTimes(1);
  });
});
