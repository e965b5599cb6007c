import { newTestService } from '../../test/support/new-test-service';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { Platform } from '../common/platform';
import { InstallationChanges, InstallationRow, InstallationsRepository, NewInstallation } from './installations.repository';
import { InstallationsService } from './installations.service';

const APP = 'app-1';
const APNS_TOKEN = 'AB'.repeat(32);

/** Live installations by id; records what the service asked to write. */
class InMemoryInstallations implements Pick<InstallationsRepository, 'channelOf' | 'update' | 'create' | 'softDelete' | 'find'> {
  rows = new Map<string, InstallationRow>();
  updates: InstallationChanges[] = [];
  creates: NewInstallation[] = [];

  async find(_app: string, id: string) {
    return this.rows.get(id);
  }
  async channelOf(_app: string, id: string): Promise<{ platform: Platform; subscribed: boolean } | null> {
    const row = this.rows.get(id);
    return row ? { platform: row.platform, subscribed: row.web_push_subscription !== null } : null;
  }
  async update(_app: string, id: string, changes: InstallationChanges) {
    this.updates.push(changes);
    return this.rows.get(id);
  }
  async create(_app: string, id: string, values: NewInstallation) {
    this.creates.push(values);
    const row = installationRow(id, values.platform);
    this.rows.set(id, row);
    return row;
  }
  async softDelete(_app: string, id: string) {
    return this.rows.delete(id);
  }
}

function installationRow(id: string, platform: Platform): InstallationRow {
  const now = new Date();
  return {
    id: `uuid-${id}`,
    app_id: APP,
    installation_id: id,
    platform,
    push_token: null,
    web_push_subscription: null,
    device: {},
    user_id: null,
    permission: 'unknown',
    registered_at: now,
    last_seen_at: now,
    identifier_updated_at: null,
    permission_updated_at: null,
    invalidated_at: null,
    invalid_reason: null,
    deleted_at: null,
    tags: [],
    badge: 0,
    properties: {},
    live_activity_start_tokens: {},
    widget_push_token: null,
  };
}

const errorsOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationFailedError);
  return (error as ValidationFailedError).errors;
};

/** The installation rules, with storage in memory (storage itself: test/integration/installations.int-spec.ts). */
describe('InstallationsService', () => {
  let service: InstallationsService;
  let store: InMemoryInstallations;

  beforeEach(() => {
    store = new InMemoryInstallations();
    service = newTestService(InstallationsService, { providers: [{ provide: InstallationsRepository, useValue: store }] }).sut;
  });

  it('creates on the first PUT, with the token each platform needs, an APNs token in lower case', async () => {
    const result = await service.register(APP, 'phone', { platform: 'ios', push_token: APNS_TOKEN });
    expect(result.created).toBe(true);
    expect(store.creates[0]).toMatchObject({ platform: 'ios', pushToken: APNS_TOKEN.toLowerCase(), device: '{}' });

    expect(await errorsOf(service.register(APP, 'new-1', {}))).toEqual({
      platform: ['The platform field is required when the installation is registered.'],
    });
    expect(await errorsOf(service.register(APP, 'new-2', { platform: 'android' }))).toEqual({
      push_token: ['The push_token field is required when platform is android.'],
    });
    expect(await errorsOf(service.register(APP, 'new-3', { platform: 'web', push_token: 'x' }))).toEqual({
      push_token: ['The push_token field is prohibited when platform is web; send web_push_subscription.'],
      web_push_subscription: ['The web_push_subscription field is required when platform is web.'],
    });
    expect(await errorsOf(service.register(APP, 'new-4', { platform: 'ios', push_token: 'not-hex' }))).toEqual({
      push_token: ['The push_token field must be an APNs device token (64 to 200 hexadecimal characters).'],
    });
  });

  it('refreshes an existing installation on a later PUT, and refuses a change of platform', async () => {
    store.rows.set('phone', installationRow('phone', 'android'));
    const result = await service.register(APP, 'phone', { user_id: 'alice' });
    expect(result.created).toBe(false);
    expect(store.updates[0]).toMatchObject({ setUserId: true, userId: 'alice', pushToken: null });
    expect(await errorsOf(service.register(APP, 'phone', { platform: 'ios' }))).toEqual({
      platform: ['The platform field cannot be changed (the installation is android).'],
    });
  });

  it('PATCH: needs a field, tells "user_id: null" from no user_id, and answers 404 for an unknown installation', async () => {
    store.rows.set('phone', installationRow('phone', 'ios'));
    expect(await errorsOf(service.update(APP, 'phone', {}))).toHaveProperty('body');

    await service.update(APP, 'phone', { user_id: null });
    await service.update(APP, 'phone', { permission: 'granted' });
    expect(store.updates.map((u) => [u.setUserId, u.userId, u.permission])).toEqual([
      [true, null, null],
      [false, null, 'granted'],
    ]);

    await expect(service.update(APP, 'unknown', { permission: 'denied' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.update(APP, 'unknown', { push_token: APNS_TOKEN })).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.remove(APP, 'unknown')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('keeps only endpoint and keys of a Web Push subscription', async () => {
    store.rows.set('browser', installationRow('browser', 'web'));
    await service.update(APP, 'browser', {
      web_push_subscription: { endpoint: 'https://push.example/1', keys: { p256dh: 'p', auth: 'a' }, expirationTime: 123 },
    });
    expect(JSON.parse(store.updates[0].webPushSubscription!)).toEqual({ endpoint: 'https://push.example/1', keys: { p256dh: 'p', auth: 'a' } });
  });

  describe('push_provider (docs/api.md#push-provider)', () => {
    const subscription = { endpoint: 'https://push.example/up/1', keys: { p256dh: 'p', auth: 'a' } };

    it('registers an Android installation with UnifiedPush: a subscription instead of a push token', async () => {
      const created = await service.register(APP, 'up', { platform: 'android', push_provider: 'unifiedpush', web_push_subscription: subscription });
      expect(created.created).toBe(true);
      expect(store.creates[0]).toMatchObject({ platform: 'android', pushToken: null, webPushSubscription: JSON.stringify(subscription) });

      expect(await errorsOf(service.register(APP, 'up-2', { platform: 'android', push_provider: 'unifiedpush' }))).toEqual({
        web_push_subscription: ['The web_push_subscription field is required when push_provider is unifiedpush.'],
      });
      expect(await errorsOf(service.register(APP, 'up-3', { platform: 'android', push_provider: 'unifiedpush', push_token: 'fcm-token' }))).toEqual({
        push_token: ['The push_token field is prohibited when push_provider is unifiedpush; send web_push_subscription.'],
        web_push_subscription: ['The web_push_subscription field is required when push_provider is unifiedpush.'],
      });
      // Without push_provider an Android installation is FCM's.
      expect(await errorsOf(service.register(APP, 'up-4', { platform: 'android', web_push_subscription: subscription }))).toEqual({
        web_push_subscription: ['The web_push_subscription field is prohibited when platform is android.'],
        push_token: ['The push_token field is required when platform is android.'],
      });
    });

    it("refuses a provider of another platform, and accepts a platform's own", async () => {
      expect(await errorsOf(service.register(APP, 'p1', { platform: 'ios', push_provider: 'fcm', push_token: APNS_TOKEN }))).toEqual({
        push_provider: ['The push_provider field must be apns when platform is ios.'],
      });
      expect(await errorsOf(service.register(APP, 'p2', { platform: 'web', push_provider: 'unifiedpush', web_push_subscription: subscription }))).toEqual({
        push_provider: ['The push_provider field must be web_push when platform is web.'],
      });
      expect((await service.register(APP, 'p3', { platform: 'huawei', push_provider: 'hms', push_token: 'hms-token' })).created).toBe(true);
    });

    it("keeps the stored provider when none is given, and switches with the new one's token", async () => {
      store.rows.set('up', { ...installationRow('up', 'android'), web_push_subscription: subscription });
      // A refresh of the subscription needs no push_provider; a push token alone is refused.
      await service.register(APP, 'up', { web_push_subscription: subscription });
      expect(await errorsOf(service.update(APP, 'up', { push_token: 'fcm-token' }))).toEqual({
        push_token: ['The push_token field is prohibited when push_provider is unifiedpush; send web_push_subscription.'],
      });
      expect(await errorsOf(service.update(APP, 'up', { push_provider: 'fcm' }))).toEqual({
        push_token: ['The push_token field is required when push_provider changes to fcm.'],
      });
      await service.update(APP, 'up', { push_provider: 'fcm', push_token: 'fcm-token' });
      expect(store.updates.at(-1)).toMatchObject({ pushToken: 'fcm-token', webPushSubscription: null });

      store.rows.set('phone', installationRow('phone', 'android'));
      expect(await errorsOf(service.update(APP, 'phone', { push_provider: 'unifiedpush' }))).toEqual({
        web_push_subscription: ['The web_push_subscription field is required when push_provider changes to unifiedpush.'],
      });
      await service.update(APP, 'phone', { push_provider: 'unifiedpush', web_push_subscription: subscription });
      expect(store.updates.at(-1)).toMatchObject({ pushToken: null, webPushSubscription: JSON.stringify(subscription) });
      await expect(service.update(APP, 'unknown', { push_provider: 'fcm', push_token: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    });

    it('shows push_provider on the resource, derived from the row', async () => {
      store.rows.set('up', { ...installationRow('up', 'android'), web_push_subscription: subscription });
      store.rows.set('phone', installationRow('phone', 'android'));
      store.rows.set('mac', installationRow('mac', 'ios'));
      store.rows.set('browser', installationRow('browser', 'web'));
      store.rows.set('mate', installationRow('mate', 'huawei'));
      const providers = await Promise.all(['up', 'phone', 'mac', 'browser', 'mate'].map(async (id) => (await service.find(APP, id)).push_provider));
      expect(providers).toEqual(['unifiedpush', 'fcm', 'apns', 'web_push', 'hms']);
    });
  });
});
