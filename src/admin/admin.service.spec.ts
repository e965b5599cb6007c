import { Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { newTestService } from '../../test/support/new-test-service';
import { AppsService } from '../apps/apps.service';
import { AudienceTimedOutError, NotFoundError, ValidationFailedError } from '../common/errors';
import { InboxService } from '../inbox/inbox.service';
import { InstallationsService } from '../installations/installations.service';
import { LiveActivitiesService } from '../live-activities/live-activities.service';
import { LiveActivityChannelsService } from '../live-activities/live-activity-channels.service';
import { AudiencesService } from '../notifications/audiences/audiences.service';
import { QueueInspector } from '../queue/queue-inspector';
import { PreferencesService } from '../topics/preferences.service';
import { TopicsService } from '../topics/topics.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { AdminRepository } from './admin.repository';
import { AdminService, LIVE_ACTIVITIES_LISTED, OVERVIEW_MINUTES, QUEUE_STATES } from './admin.service';

const APP = { id: 'app-1', name: 'Shop', created_at: '2026-01-01T00:00:00.000Z' };

/** The operator dashboard's reads (docs/operations.md "Operator dashboard"), with the features' services faked. */
describe('AdminService', () => {
  const setup = () => {
    const built = newTestService(AdminService);
    built.mocks.get(AppsService).find.mockImplementation(async (id: string) => (id === APP.id ? APP : null));
    return built;
  };

  it('answers 404 for an unknown app before reading any of its data', async () => {
    const { sut, mocks } = setup();
    await expect(sut.app('nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(sut.liveActivities('nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(sut.lookUpInstallations('nope', { user_id: 'ann' })).rejects.toBeInstanceOf(NotFoundError);
    expect(mocks.get(LiveActivitiesService).listWithLastUpdate).not.toHaveBeenCalled();
    expect(mocks.get(InstallationsService).findByUser).not.toHaveBeenCalled();
    // A user's page and the topics: nothing of a user or topic is read or written for an unknown app.
    await expect(sut.topics('nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(sut.putTopic('nope', 'news', { name: 'News', default: 'subscribed' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(sut.deleteTopic('nope', 'news')).rejects.toBeInstanceOf(NotFoundError);
    await expect(sut.preferences('nope', 'ann')).rejects.toBeInstanceOf(NotFoundError);
    await expect(sut.inbox('nope', 'ann', {})).rejects.toBeInstanceOf(NotFoundError);
    expect(mocks.get(TopicsService).list).not.toHaveBeenCalled();
    expect(mocks.get(TopicsService).put).not.toHaveBeenCalled();
    expect(mocks.get(TopicsService).remove).not.toHaveBeenCalled();
    expect(mocks.get(PreferencesService).get).not.toHaveBeenCalled();
    expect(mocks.get(InboxService).list).not.toHaveBeenCalled();
  });

  it("counts each topic's subscribers as a recipients.topic send would reach them; null when that count fails", async () => {
    const { sut, mocks } = setup();
    const topic = (key: string) => ({ key, name: key, description: null, default: 'subscribed' as const, created_at: 'c', updated_at: 'u' });
    mocks.get(TopicsService).list.mockResolvedValue([topic('huge'), topic('gone'), topic('news')]);
    const count = (users: number) => ({ installations: users, sendable: users, users, platforms: { ios: users, android: 0, web: 0, huawei: 0 } });
    mocks.get(AudiencesService).count.mockImplementation(async (_app: string, recipients: { topic?: string }) => {
      if (recipients.topic === 'huge') throw new AudienceTimedOutError(10_000);
      if (recipients.topic === 'gone') throw ValidationFailedError.of('recipients.topic', 'The recipients.topic field names no topic of the app.');
      return count(7);
    });
    expect((await sut.topics(APP.id)).map((t) => [t.key, t.subscribers])).toEqual([
      ['huge', null],
      ['gone', null],
      ['news', 7],
    ]);
    expect(mocks.get(AudiencesService).count).toHaveBeenCalledWith(APP.id, { topic: 'news' });
    mocks.get(AudiencesService).count.mockRejectedValue(new Error('database down'));
    await expect(sut.topics(APP.id)).rejects.toThrow('database down');
  });

  it("reads a user's inbox as the API does: every message not archived, 20 a page, by default", async () => {
    const { sut, mocks } = setup();
    mocks.get(InboxService).list.mockResolvedValue({ data: [], meta: { next_cursor: null, unread: 0 } });
    await sut.inbox(APP.id, 'ann', {});
    await sut.inbox(APP.id, 'ann', { state: 'archived', limit: '5', cursor: 'c' });
    expect(mocks.get(InboxService).list.mock.calls).toEqual([
      [APP.id, 'ann', 'inbox', 20, undefined],
      [APP.id, 'ann', 'archived', 5, 'c'],
    ]);
  });

  it('looks an installation up by exactly one of installation_id and user_id; one not found is an empty list', async () => {
    const { sut, mocks } = setup();
    for (const query of [{}, { installation_id: 'phone', user_id: 'ann' }]) {
      const error = await sut.lookUpInstallations(APP.id, query).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationFailedError);
      expect((error as ValidationFailedError).errors).toEqual({ installation_id: ['Give either installation_id or user_id.'] });
    }
    mocks.get(InstallationsService).find.mockRejectedValue(new NotFoundError());
    expect(await sut.lookUpInstallations(APP.id, { installation_id: 'gone' })).toEqual([]);
    mocks.get(InstallationsService).find.mockRejectedValue(new Error('database down'));
    await expect(sut.lookUpInstallations(APP.id, { installation_id: 'phone' })).rejects.toThrow('database down');
  });

  it("lists the app's newest Live Activities and its channels", async () => {
    const { sut, mocks } = setup();
    mocks.get(LiveActivitiesService).listWithLastUpdate.mockResolvedValue([]);
    mocks
      .get(LiveActivityChannelsService)
      .listWithLastBroadcast.mockResolvedValue([{ id: 'ch', storage: 'none', created_at: '2026-01-01T00:00:00.000Z', last_broadcast: null }]);
    expect(await sut.liveActivities(APP.id)).toEqual({
      activities: [],
      channels: [{ id: 'ch', storage: 'none', created_at: '2026-01-01T00:00:00.000Z', last_broadcast: null }],
      limit: 100,
    });
    expect(mocks.get(LiveActivitiesService).listWithLastUpdate).toHaveBeenCalledWith(APP.id, LIVE_ACTIVITIES_LISTED);
  });

  it("overview: every minute of the last hour (zeros included), the queues' job counts and the webhook failures of a day", async () => {
    const { sut, mocks } = setup();
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-11-29T10:30:45Z'));
    const minute = new Date('2026-11-29T10:30:00Z');
    mocks.get(AdminRepository).minutesSince.mockResolvedValue([
      { minute, outcome: 'accepted', count: 5 },
      { minute, outcome: 'pending', count: 2 },
    ]);
    const counts = { waiting: 1, active: 2, delayed: 0, prioritized: 0, failed: 3 };
    const getJobCounts = jest.fn().mockResolvedValue(counts);
    mocks.get(QueueInspector).queues.mockReturnValue([{ name: 'deliver', getJobCounts } as unknown as Queue]);
    mocks.get(WebhooksService).failures.mockResolvedValue({ hours: 24, failed: 0, retrying: 0, recent: [] });

    const overview = await sut.overview();
    expect(overview.every_app).toBe(true);
    expect(overview.minutes).toHaveLength(OVERVIEW_MINUTES);
    expect(overview.minutes.filter((p) => p.accepted + p.retried > 0)).toEqual([
      { minute: minute.toISOString(), accepted: 5, failed: 0, skipped: 0, retried: 2 },
    ]);
    expect(overview.minutes[OVERVIEW_MINUTES - 1].minute).toBe(minute.toISOString());
    expect(overview.queues).toEqual([{ name: 'deliver', counts }]);
    expect(getJobCounts).toHaveBeenCalledWith(...QUEUE_STATES);
    expect(mocks.get(WebhooksService).failures).toHaveBeenCalledWith(24, 20, null);
    now.mockRestore();
  });

  it("overview of some apps: their minutes and webhooks, every_app false, and no queue depths (every app's jobs)", async () => {
    const { sut, mocks } = setup();
    mocks.get(AdminRepository).minutesOfAppsSince.mockResolvedValue([]);
    const getJobCounts = jest.fn();
    mocks.get(QueueInspector).queues.mockReturnValue([{ name: 'deliver', getJobCounts } as unknown as Queue]);
    mocks.get(WebhooksService).failures.mockResolvedValue({ hours: 24, failed: 0, retrying: 0, recent: [] });

    const overview = await sut.overview([APP.id]);
    expect({ every_app: overview.every_app, queues: overview.queues }).toEqual({ every_app: false, queues: null });
    expect(mocks.get(AdminRepository).minutesOfAppsSince).toHaveBeenCalledWith(expect.any(Date), [APP.id]);
    expect(mocks.get(AdminRepository).minutesSince).not.toHaveBeenCalled();
    expect(getJobCounts).not.toHaveBeenCalled();
    expect(mocks.get(WebhooksService).failures).toHaveBeenCalledWith(24, 20, [APP.id]);
  });

  it('overview: the queues are null, not an error, when Redis does not answer', async () => {
    const { sut, mocks } = setup();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    mocks.get(AdminRepository).minutesSince.mockResolvedValue([]);
    mocks
      .get(QueueInspector)
      .queues.mockReturnValue([{ name: 'deliver', getJobCounts: () => Promise.reject(new Error('Connection is closed.')) } as unknown as Queue]);
    mocks.get(WebhooksService).failures.mockResolvedValue({ hours: 24, failed: 0, retrying: 0, recent: [] });
    expect((await sut.overview()).queues).toBeNull();
    expect(warn).toHaveBeenCalledWith('Queue depths not read: Connection is closed.');
    warn.mockRestore();
  });
});
