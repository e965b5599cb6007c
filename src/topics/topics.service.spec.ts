import { newTestService } from '../../test/support/new-test-service';
import { ValidationFailedError } from '../common/errors';
import { PreferencesRepository } from './preferences.repository';
import { PreferencesService } from './preferences.service';
import { TopicsRepository } from './topics.repository';
import { TopicsService } from './topics.service';

const APP = '0d6f1c2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f';
const AT = new Date('2026-11-29T08:00:00.000Z');
const row = { key: 'deals', name: 'Deals', description: null, default_subscribed: false, created_at: AT, updated_at: AT };

/** Topic rules (docs/api.md#topics), with the topics table faked. */
describe('TopicsService', () => {
  it('answers the resource, default as a word, and the limit as a 422 on key', async () => {
    const { sut, mocks } = newTestService(TopicsService);
    const topics = mocks.get(TopicsRepository);
    topics.upsert.mockResolvedValueOnce({ ...row, created: true }).mockResolvedValueOnce(undefined);
    await expect(sut.put(APP, 'deals', { name: 'Deals', default: 'unsubscribed' })).resolves.toEqual({
      created: true,
      topic: { key: 'deals', name: 'Deals', description: null, default: 'unsubscribed', created_at: AT.toISOString(), updated_at: AT.toISOString() },
    });
    expect(topics.upsert).toHaveBeenCalledWith(APP, 'deals', { name: 'Deals', description: null, defaultSubscribed: false }, 100);
    const refused = sut.put(APP, 'more', { name: 'More', default: 'subscribed' });
    await expect(refused).rejects.toBeInstanceOf(ValidationFailedError);
    await expect(refused).rejects.toMatchObject({ errors: { key: ['The app already has 100 topics, the most it may have: delete one first.'] } });
  });

  it("refuses a send's unknown topic at the path it was given", async () => {
    const { sut, mocks } = newTestService(TopicsService);
    mocks.get(TopicsRepository).find.mockResolvedValueOnce(row).mockResolvedValueOnce(undefined);
    await expect(sut.assertExists(APP, 'deals', 'options.topic')).resolves.toBeUndefined();
    await expect(sut.assertExists(APP, 'nosuch', 'recipients.topic')).rejects.toMatchObject({
      errors: { 'recipients.topic': ['The recipients.topic field names no topic of the app.'] },
    });
  });
});

/** Preference rules (docs/api.md#preferences), with their tables faked. */
describe('PreferencesService', () => {
  const stored = {
    topics: [
      { key: 'deals', default_subscribed: false, subscribed: null },
      { key: 'orders', default_subscribed: true, subscribed: false },
    ],
    channels: { push: false, inbox: null },
  };

  it('fills in the defaults: a topic without a choice, a channel never set', async () => {
    const { sut, mocks } = newTestService(PreferencesService);
    mocks.get(PreferencesRepository).read.mockResolvedValue(stored);
    await expect(sut.get(APP, 'ann')).resolves.toEqual({
      user_id: 'ann',
      topics: { deals: { subscribed: false, source: 'default' }, orders: { subscribed: false, source: 'user' } },
      channels: { push: false, inbox: true },
    });
    mocks.get(PreferencesRepository).read.mockResolvedValue({ topics: [], channels: null });
    expect((await sut.get(APP, 'bob')).channels).toEqual({ push: true, inbox: true });
  });

  it('changes only what the body names, and refuses unknown topics and an empty body without writing', async () => {
    const { sut, mocks } = newTestService(PreferencesService);
    const preferences = mocks.get(PreferencesRepository);
    preferences.read.mockResolvedValue(stored);
    await sut.update(APP, 'ann', { topics: { deals: true, orders: null }, channels: { inbox: false } });
    expect(preferences.change).toHaveBeenCalledWith(APP, 'ann', {
      topics: [
        { key: 'deals', subscribed: true },
        { key: 'orders', subscribed: null },
      ],
      push: undefined,
      inbox: false,
    });
    await expect(sut.update(APP, 'ann', { topics: { deals: true, a: true, b: false } })).rejects.toMatchObject({
      errors: { 'topics.a': ['The topics.a field names no topic of the app.'], 'topics.b': ['The topics.b field names no topic of the app.'] },
    });
    await expect(sut.update(APP, 'ann', {})).rejects.toMatchObject({ errors: { body: ['The request body must contain at least one of topics, channels.'] } });
    expect(preferences.change).toHaveBeenCalledTimes(1);
  });
});
