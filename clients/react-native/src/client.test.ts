import { beforeEach, describe, expect, it } from 'vitest';
import { backgroundMessageHandler, PushApiError, PushClient, type PushClientOptions } from './index';
import { OUTBOX_KEY } from './events';
import {
  AuthorizationStatus,
  FakeAppState,
  expoNotification,
  FakeExpoNotifications,
  FakeFetch,
  FakeFirebaseMessaging,
  firebaseRemoteMessage,
  MemoryStorage,
} from './testing/fakes';

const APNS = 'ab'.repeat(32);
const APNS_2 = 'cd'.repeat(32);
const FCM = 'fcm-token-1';
const FCM_2 = 'fcm-token-2';
const HASH = 'f'.repeat(64);
const NOTIFICATION = '7d0f5c1e-0000-4000-8000-000000000001';
const DAY = 24 * 60 * 60 * 1000;
const DEVICE = { app_version: '3.2.0', os_version: '18.1', model: 'iPhone16,1', locale: 'fr-FR', timezone: 'Europe/Paris' };

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('PushClient', () => {
  let api: FakeFetch;
  let storage: MemoryStorage;
  let clock: number;
  let errors: unknown[];

  beforeEach(() => {
    api = new FakeFetch();
    storage = new MemoryStorage();
    clock = Date.parse('2026-11-20T10:00:00Z');
    errors = [];
  });

  const options = (extra: Partial<PushClientOptions>): PushClientOptions => ({
    baseUrl: 'https://push.example.com/',
    token: 'pns_client',
    storage,
    fetch: api.fetch,
    now: () => clock,
    sleep: async () => {},
    XMLHttpRequest: null,
    device: { appVersion: DEVICE.app_version, osVersion: DEVICE.os_version, model: DEVICE.model, locale: DEVICE.locale, timezone: DEVICE.timezone },
    onError: (error) => errors.push(error),
    ...extra,
  });

  describe('with @react-native-firebase/messaging', () => {
    let messaging: FakeFirebaseMessaging;
    beforeEach(() => {
      messaging = new FakeFirebaseMessaging('ios', APNS, FCM);
    });
    const init = (extra: Partial<PushClientOptions> = {}) => PushClient.init(options({ messaging, platform: 'ios', ...extra }));

    it('keeps one installation id across starts and sends nothing before the permission is asked', async () => {
      const first = await init();
      const second = await init();
      expect(first.installationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(second.installationId).toBe(first.installationId);
      expect(first.library).toBe('firebase');
      expect(await first.permission()).toBe('unknown');
      expect(api.sent).toEqual([]);
    });

    it('takes the installation id it is given when the device has none (an imported OneSignal id)', async () => {
      expect((await init({ installationId: 'onesignal-player-1' })).installationId).toBe('onesignal-player-1');
      expect((await init({ installationId: 'another' })).installationId).toBe('onesignal-player-1');
    });

    it('requestPermission() asks, then registers the APNs token with PUT (iOS)', async () => {
      const push = await init();
      await expect(push.requestPermission()).resolves.toBe('granted');
      expect(messaging.permissionRequests).toBe(1);
      expect(api.sent).toEqual([
        {
          method: 'PUT',
          url: `https://push.example.com/api/v1/installations/${push.installationId}`,
          headers: { authorization: 'Bearer pns_client', 'content-type': 'application/json' },
          body: { platform: 'ios', push_token: APNS, permission: 'granted', device: DEVICE },
        },
      ]);
    });

    it('registers the FCM token on Android', async () => {
      messaging = new FakeFirebaseMessaging('android', APNS, FCM);
      const push = await init({ platform: 'android' });
      await push.requestPermission();
      expect(api.sent[0].body).toMatchObject({ platform: 'android', push_token: FCM });
    });

    it('a refusal before any registration sends nothing', async () => {
      messaging.answer = AuthorizationStatus.DENIED;
      const push = await init();
      await expect(push.requestPermission()).resolves.toBe('denied');
      expect(api.sent).toEqual([]);
    });

    it('provisional authorization counts as granted', async () => {
      messaging.answer = AuthorizationStatus.PROVISIONAL;
      const push = await init();
      await expect(push.requestPermission()).resolves.toBe('granted');
      expect(api.sent[0].body).toMatchObject({ permission: 'granted' });
    });

    it('sends the same registration once: not again at the next start, again (PUT) once a day old', async () => {
      const push = await init();
      await push.requestPermission();
      await init();
      expect(api.sent).toHaveLength(1);
      clock += DAY - 1000;
      await init();
      expect(api.sent).toHaveLength(1);
      clock += 1000;
      await init();
      expect(api.routes).toEqual([`PUT /installations/${push.installationId}`, `PUT /installations/${push.installationId}`]);
    });

    it('a token refresh PATCHes the new token alone', async () => {
      const push = await init();
      await push.requestPermission();
      messaging.rotateTokens(APNS_2, FCM_2);
      await push.sync();
      expect(api.sent.slice(1)).toEqual([expect.objectContaining({ method: 'PATCH', body: { push_token: APNS_2 } })]);
    });

    it('a permission changed in the settings is reported when the app comes back to the foreground', async () => {
      const appState = new FakeAppState();
      const push = await init({ appState });
      await push.requestPermission();
      messaging.status = AuthorizationStatus.DENIED;
      appState.foreground();
      await push.sync();
      expect(api.sent.slice(1)).toEqual([expect.objectContaining({ method: 'PATCH', body: { permission: 'denied' } })]);
      messaging.status = AuthorizationStatus.AUTHORIZED;
      appState.foreground();
      await push.sync();
      expect(api.sent.slice(2).map((r) => r.body)).toEqual([{ permission: 'granted' }]);
      push.close();
      expect(appState.listening).toBe(false);
      expect(messaging.listenerCount).toBe(0);
    });

    it("setUser sends the backend's hash beside the user id, and with a new token of a bound installation", async () => {
      const push = await init();
      await push.setUser('alice', HASH);
      expect(api.sent).toEqual([]);
      await push.requestPermission();
      expect(api.sent[0].body).toMatchObject({ user_id: 'alice', user_id_hash: HASH });
      await push.setUser('bob', 'b'.repeat(64));
      messaging.rotateTokens(APNS_2, FCM_2);
      await push.sync();
      await push.setUser(null);
      expect(api.sent.slice(1).map((r) => [r.method, r.body])).toEqual([
        ['PATCH', { user_id: 'bob', user_id_hash: 'b'.repeat(64) }],
        ['PATCH', { push_token: APNS_2, user_id_hash: 'b'.repeat(64) }],
        ['PATCH', { user_id: null }],
      ]);
    });

    it('a refused setUser (wrong hash) throws and keeps the previous user; a lost connection keeps the new one for the next sync', async () => {
      const push = await init();
      await push.setUser('alice', HASH);
      await push.requestPermission();
      api.answer({ status: 422, body: { message: 'The given data was invalid.', errors: { user_id_hash: ['The user_id_hash does not match user_id.'] } } });
      const refused = (await push.setUser('mallory', 'e'.repeat(64)).catch((e: unknown) => e)) as PushApiError;
      expect(refused).toBeInstanceOf(PushApiError);
      expect(refused.errors).toEqual({ user_id_hash: ['The user_id_hash does not match user_id.'] });
      await push.sync();
      expect(api.sent).toHaveLength(2);
      await push.preferences.get();
      expect(api.sent[2].url).toContain('/users/alice/preferences');

      api.answer('network-error');
      await expect(push.setUser('carol', 'c'.repeat(64))).rejects.toThrow(TypeError);
      await push.sync();
      expect(api.sent.at(-1)).toMatchObject({ method: 'PATCH', body: { user_id: 'carol', user_id_hash: 'c'.repeat(64) } });
    });

    it('registers anew (PUT) when a PATCH meets a deleted installation (404)', async () => {
      const push = await init();
      await push.requestPermission();
      api.answer({ status: 404, body: { message: 'Not Found' } });
      await push.setTags(['vip', 'beta', 'vip']);
      expect(api.sent.slice(1).map((r) => [r.method, r.body])).toEqual([
        ['PATCH', { tags: ['beta', 'vip'] }],
        ['PUT', { platform: 'ios', push_token: APNS, permission: 'granted', device: DEVICE, tags: ['beta', 'vip'] }],
      ]);
    });

    it('gives Live Activity push-to-start tokens by type, lower-cased, with the user proof; iOS only', async () => {
      const push = await init();
      await push.setUser('alice', HASH);
      await push.requestPermission();
      await push.setLiveActivityStartToken('DeliveryAttributes', 'AB'.repeat(32));
      await push.setLiveActivityStartToken('ScoreAttributes', 'cd'.repeat(32));
      await push.setLiveActivityStartToken('DeliveryAttributes', null);
      expect(api.sent.slice(1).map((r) => r.body)).toEqual([
        { live_activity_start_tokens: { DeliveryAttributes: 'ab'.repeat(32) }, user_id_hash: HASH },
        { live_activity_start_tokens: { DeliveryAttributes: 'ab'.repeat(32), ScoreAttributes: 'cd'.repeat(32) }, user_id_hash: HASH },
        { live_activity_start_tokens: { ScoreAttributes: 'cd'.repeat(32) }, user_id_hash: HASH },
      ]);

      messaging = new FakeFirebaseMessaging('android', APNS, FCM);
      storage = new MemoryStorage();
      const android = await init({ platform: 'android', storage });
      await android.requestPermission();
      await expect(android.setLiveActivityStartToken('DeliveryAttributes', 'ab'.repeat(32))).rejects.toThrow('iOS only');
      await expect(android.sync()).resolves.toBeUndefined();
    });

    it('reports received and opened (no action: Firebase has none), and the tap that launched the app once', async () => {
      messaging.initial = firebaseRemoteMessage('ios', NOTIFICATION, { action_url: 'myapp://orders/42' });
      const opened: unknown[] = [];
      const received: unknown[] = [];
      const push = await init({ onOpened: (message, action) => opened.push([message.actionUrl, action]), onReceived: (m) => received.push(m.data) });
      messaging.tap(firebaseRemoteMessage('ios', NOTIFICATION, { action_url: 'myapp://orders/42' }));
      messaging.deliver(firebaseRemoteMessage('ios', NOTIFICATION, { data: { order_id: 42 } }));
      messaging.deliver({ messageId: 'other', data: { from_another_sender: 'yes' } });
      await settle();
      const events = api.sent.map((r) => [r.url.replace('https://push.example.com/api/v1', ''), r.body]);
      expect(events).toEqual([
        [`/notifications/${NOTIFICATION}/events`, { installation_id: push.installationId, type: 'opened', occurred_at: '2026-11-20T10:00:00.000Z' }],
        [`/notifications/${NOTIFICATION}/events`, { installation_id: push.installationId, type: 'received', occurred_at: '2026-11-20T10:00:00.000Z' }],
      ]);
      expect(opened).toEqual([['myapp://orders/42', null]]);
      // Taps on another sender's pushes reach the app each time, unreported.
      messaging.tap({ messageId: 'other-1', data: { link: 'a' } });
      messaging.tap({ messageId: 'other-2', data: { link: 'b' } });
      expect(opened).toHaveLength(3);
      await settle();
      expect(api.sent).toHaveLength(2);
      expect(received).toEqual([{ order_id: 42 }, { from_another_sender: 'yes' }]);
    });

    it('keeps a report the service could not take (lost connection, 5xx) and sends it at the next start; drops a refused one', async () => {
      const push = await init();
      api.answer('network-error', { status: 422, body: { message: 'The installation_id is not a target of this notification.' } });
      messaging.deliver(firebaseRemoteMessage('ios', NOTIFICATION));
      messaging.tap(firebaseRemoteMessage('ios', NOTIFICATION));
      await settle();
      await settle();
      expect(JSON.parse((await storage.getItem(OUTBOX_KEY))!)).toEqual([expect.objectContaining({ type: 'received', notificationId: NOTIFICATION })]);
      expect(errors).toEqual([expect.objectContaining({ status: 422 })]);
      push.close();
      await init();
      expect(api.sent.at(-1)).toMatchObject({ method: 'POST', body: { type: 'received', installation_id: push.installationId } });
      expect(JSON.parse((await storage.getItem(OUTBOX_KEY))!)).toEqual([]);
    });

    it('backgroundMessageHandler reports received with the installation id the app keeps', async () => {
      const push = await init();
      messaging.setBackgroundMessageHandler(
        backgroundMessageHandler({ baseUrl: 'https://push.example.com', token: 'pns_client', storage, fetch: api.fetch, now: () => clock }),
      );
      await messaging.backgroundHandler!(firebaseRemoteMessage('android', NOTIFICATION));
      expect(api.sent).toEqual([
        expect.objectContaining({ method: 'POST', body: { installation_id: push.installationId, type: 'received', occurred_at: '2026-11-20T10:00:00.000Z' } }),
      ]);
    });

    it('refuses an unclear setup', async () => {
      await expect(PushClient.init(options({ messaging }))).rejects.toThrow('pass platform: Platform.OS');
      await expect(PushClient.init(options({ messaging, platform: 'ios', notifications: new FakeExpoNotifications('ios', APNS) }))).rejects.toThrow('not both');
      await expect(PushClient.init(options({}))).rejects.toThrow('pass messaging');
      await expect(PushClient.init(options({ messaging, platform: 'ios', token: '' }))).rejects.toThrow('token is required');
    });
  });

  describe('with expo-notifications', () => {
    let notifications: FakeExpoNotifications;
    beforeEach(() => {
      notifications = new FakeExpoNotifications('android', FCM);
    });
    const init = (extra: Partial<PushClientOptions> = {}) => PushClient.init(options({ notifications, ...extra }));

    it('registers the device token of getDevicePushTokenAsync, with its platform, once permitted', async () => {
      const push = await init();
      expect(api.sent).toEqual([]);
      await expect(push.requestPermission()).resolves.toBe('granted');
      expect(push.library).toBe('expo');
      expect(api.sent).toEqual([
        expect.objectContaining({ method: 'PUT', body: { platform: 'android', push_token: FCM, permission: 'granted', device: DEVICE } }),
      ]);
    });

    it('registers iOS with the APNs token', async () => {
      notifications = new FakeExpoNotifications('ios', APNS);
      await (await init()).requestPermission();
      expect(api.sent[0].body).toMatchObject({ platform: 'ios', push_token: APNS });
    });

    it('a token change PATCHes it at once; a permission change is reported at the next sync', async () => {
      const push = await init();
      await push.requestPermission();
      notifications.rotateToken(FCM_2);
      await settle();
      await push.sync();
      notifications.setPermission('denied');
      await push.sync();
      expect(api.sent.slice(1).map((r) => [r.method, r.body])).toEqual([
        ['PATCH', { push_token: FCM_2 }],
        ['PATCH', { permission: 'denied' }],
      ]);
    });

    it('reports opened with the action button tapped; a tap on the notification itself has no action', async () => {
      const opened: unknown[] = [];
      const push = await init({ onOpened: (message, action) => opened.push([message.notificationId, action]) });
      notifications.respond(expoNotification('android', NOTIFICATION), 'archive');
      notifications.respond(expoNotification('android', NOTIFICATION));
      notifications.deliver(expoNotification('android', NOTIFICATION));
      await settle();
      expect(api.sent.map((r) => r.body)).toEqual([
        { installation_id: push.installationId, type: 'opened', action: 'archive', occurred_at: '2026-11-20T10:00:00.000Z' },
        { installation_id: push.installationId, type: 'opened', occurred_at: '2026-11-20T10:00:00.000Z' },
        { installation_id: push.installationId, type: 'received', occurred_at: '2026-11-20T10:00:00.000Z' },
      ]);
      expect(opened).toEqual([
        [NOTIFICATION, 'archive'],
        [NOTIFICATION, null],
      ]);
    });

    it('reads the notification id from the APNs payload on iOS and reports the launching tap', async () => {
      notifications = new FakeExpoNotifications('ios', APNS);
      notifications.lastResponse = {
        notification: expoNotification('ios', NOTIFICATION, { action_url: 'myapp://x' }),
        actionIdentifier: notifications.DEFAULT_ACTION_IDENTIFIER,
      };
      const opened: unknown[] = [];
      await init({ onOpened: (message) => opened.push(message.actionUrl) });
      await settle();
      expect(api.routes).toEqual([`POST /notifications/${NOTIFICATION}/events`]);
      expect(opened).toEqual(['myapp://x']);
    });
  });
});
