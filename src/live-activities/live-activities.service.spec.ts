import { Logger } from '@nestjs/common';
import { newTestService } from '../../test/support/new-test-service';
import { NotFoundError, StateConflictError, ValidationFailedError } from '../common/errors';
import { LiveActivityJobs } from '../queue/jobs';
import { LiveActivitiesRepository, LiveActivityRow, LiveActivityUpdateRow } from './live-activities.repository';
import { ENDED_MESSAGE, LiveActivitiesService } from './live-activities.service';

const APP = 'app-1';
const TOKEN = 'AB'.repeat(40);

const activityRow = (extra: Partial<LiveActivityRow> = {}): LiveActivityRow => ({
  id: 'row-1',
  activity_id: 'order-42',
  installation_key: 'phone',
  attributes_type: 'DeliveryAttributes',
  status: 'active',
  created_at: new Date('2026-11-26T12:00:00Z'),
  updated_at: new Date('2026-11-26T12:00:00Z'),
  ended_at: null,
  invalid_reason: null,
  ...extra,
});
const updateRow = (acceptedAt: Date): LiveActivityUpdateRow => ({
  id: 'u-1',
  seq: '3',
  event: 'update',
  status: 'pending',
  reason: null,
  accepted_at: acceptedAt,
});

/** Live Activities (docs/api.md#live-activities) and their updates, with storage and queue faked. */
describe('LiveActivitiesService', () => {
  const setup = () => {
    const built = newTestService(LiveActivitiesService);
    return { ...built, activities: built.mocks.get(LiveActivitiesRepository), jobs: built.mocks.get(LiveActivityJobs) };
  };
  const fieldErrors = async (promise: Promise<unknown>) => {
    const error = await promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailedError);
    return (error as ValidationFailedError).errors;
  };

  it('registers only for an iOS installation of the app, with the token in lower case', async () => {
    const { sut, activities } = setup();
    const dto = { installation_id: 'phone', attributes_type: 'DeliveryAttributes', push_token: TOKEN };
    activities.installation.mockResolvedValueOnce(undefined);
    expect(await fieldErrors(sut.register(APP, 'order-42', dto))).toEqual({ installation_id: ['The installation_id must name an installation of this app.'] });
    activities.installation.mockResolvedValueOnce({ id: 'i-1', platform: 'android' });
    expect(await fieldErrors(sut.register(APP, 'order-42', dto))).toEqual({
      installation_id: ['The installation_id must name an iOS installation (it is android).'],
    });
    expect(activities.upsert).not.toHaveBeenCalled();

    activities.installation.mockResolvedValueOnce({ id: 'i-1', platform: 'ios' });
    activities.upsert.mockResolvedValueOnce({ ...activityRow(), created: true });
    const result = await sut.register(APP, 'order-42', dto);
    expect(activities.upsert).toHaveBeenCalledWith(APP, 'order-42', 'i-1', 'DeliveryAttributes', TOKEN.toLowerCase(), 'active');
    expect(result).toEqual({ created: true, activity: expect.objectContaining({ activity_id: 'order-42', installation_id: 'phone', status: 'active' }) });
    expect(JSON.stringify(result)).not.toContain(TOKEN.toLowerCase());
  });

  it("stamps an update with the service's clock, stores its content as JSON, queues its first attempt and answers 202", async () => {
    const { sut, activities, jobs, clock } = setup();
    clock.advance(3_600_000);
    const expectedAt = clock.now();
    activities.accept.mockImplementation(async (_app, _activity, update) => updateRow(update.acceptedAt));

    const answer = await sut.update(APP, 'order-42', { event: 'update', content_state: { eta: 5 } } as never, {});
    const [, , stored, active] = activities.accept.mock.calls[0];
    expect(active).toBe('active');
    // The clock runs an hour ahead of Date.now(): the stamp is the clock's.
    expect(stored.acceptedAt.getTime() - expectedAt).toBeGreaterThanOrEqual(0);
    expect(stored.acceptedAt.getTime() - expectedAt).toBeLessThan(1_000);
    expect(stored).toMatchObject({ event: 'update', priority: 'normal' });
    expect(JSON.parse(stored.content)).toEqual({ content_state: { eta: 5 }, alert: null, stale_date: null, dismissal_date: null, relevance_score: null });
    expect(jobs.add).toHaveBeenCalledWith('u-1', 1);
    expect(answer).toMatchObject({ status: 202, replayed: false });
    expect(JSON.parse(answer.body)).toEqual({
      data: { id: 'u-1', activity_id: 'order-42', event: 'update', status: 'pending', reason: null, created_at: stored.acceptedAt.toISOString() },
    });
  });

  it('refuses an update to an unknown activity (404) and to an ended one (409), storing nothing to send', async () => {
    const { sut, activities, jobs } = setup();
    activities.accept.mockResolvedValue(undefined);
    activities.find.mockResolvedValueOnce(undefined);
    await expect(sut.update(APP, 'nope', { event: 'update', content_state: {} } as never, {})).rejects.toBeInstanceOf(NotFoundError);
    activities.find.mockResolvedValueOnce(activityRow({ status: 'ended' }));
    await expect(sut.update(APP, 'order-42', { event: 'update', content_state: {} } as never, {})).rejects.toThrow(new StateConflictError(ENDED_MESSAGE));
    expect(jobs.add).not.toHaveBeenCalled();
  });

  it('refuses a content_state whose APNs payload would pass the 4 KiB limit, before storing anything', async () => {
    const { sut, activities } = setup();
    const errors = await fieldErrors(sut.update(APP, 'order-42', { event: 'update', content_state: { text: 'x'.repeat(5000) } } as never, {}));
    expect(errors.content_state[0]).toMatch(/^The update must fit APNs' 4096-byte payload limit/);
    expect(activities.accept).not.toHaveBeenCalled();
  });

  it('still answers 202 when Redis does not take the job: the update is stored, the sweeper queues it later', async () => {
    const { sut, activities, jobs } = setup();
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    activities.accept.mockResolvedValue(updateRow(new Date()));
    jobs.add.mockRejectedValue(new Error('Connection is closed.'));
    expect((await sut.update(APP, 'order-42', { event: 'update', content_state: {} } as never, {})).status).toBe(202);
    expect(error).toHaveBeenCalledWith('Live Activity update u-1 was stored but not queued: Connection is closed.');
    error.mockRestore();
  });

  it('answers 404 for an unknown activity to end, and for an update id that is no uuid without asking the database', async () => {
    const { sut, activities } = setup();
    activities.end.mockResolvedValue(false);
    await expect(sut.end(APP, 'nope')).rejects.toBeInstanceOf(NotFoundError);
    expect(activities.end).toHaveBeenCalledWith(APP, 'nope', 'ended');
    await expect(sut.findUpdate(APP, 'order-42', 'not-a-uuid')).rejects.toBeInstanceOf(NotFoundError);
    expect(activities.findUpdate).not.toHaveBeenCalled();
  });
});
