import { createHmac, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PushApiError, PushClient, type InboxEvent, type PushClientOptions } from '../../clients/react-native/src/index';
import {
  AuthorizationStatus,
  expoNotification,
  FakeAppState,
  FakeExpoNotifications,
  FakeFirebaseMessaging,
  firebaseRemoteMessage,
  MemoryStorage,
} from '../../clients/react-native/src/testing/fakes';
import { AllModule } from '../../src/app.module';
import { AppsService } from '../../src/apps/apps.service';
import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, fcmToken, newToken } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { startFakeProviders, type FakeProviders } from '../support/providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';

/** One simulated device: the push module the app uses, faked at its JavaScript API, and what the test does to it. */
interface Device {
  options: Pick<PushClientOptions, 'messaging' | 'platform' | 'notifications'>;
  token: string;
  rotate(): string;
  setPermission(granted: boolean): void;
  tap(notificationId: string, action: string | null): void;
}

function firebaseDevice(platform: 'ios' | 'android'): Device {
  const token = platform === 'ios' ? apnsToken() : fcmToken();
  const messaging = new FakeFirebaseMessaging(platform, token, token);
  return {
    options: { messaging, platform },
    token,
    rotate: () => {
      const next = platform === 'ios' ? apnsToken() : fcmToken();
      messaging.rotateTokens(next, next);
      return next;
    },
    setPermission: (granted) => (messaging.status = granted ? AuthorizationStatus.AUTHORIZED : AuthorizationStatus.DENIED),
    // Firebase reports no action button.
    tap: (id) => messaging.tap(firebaseRemoteMessage(platform, id)),
  };
}

function expoDevice(platform: 'ios' | 'android'): Device {
  const token = platform === 'ios' ? apnsToken() : fcmToken();
  const notifications = new FakeExpoNotifications(platform, token);
  return {
    options: { notifications },
    token,
    rotate: () => {
      const next = platform === 'ios' ? apnsToken() : fcmToken();
      notifications.rotateToken(next);
      return next;
    },
    setPermission: (granted) => notifications.setPermission(granted ? 'granted' : 'denied'),
    tap: (id, action) => notifications.respond(expoNotification(platform, id), action ?? notifications.DEFAULT_ACTION_IDENTIFIER),
  };
}

/**
 * The React Native SDK (clients/react-native, docs/api.md#react-native-sdk) against the service
 * over a real port, with each push library's native module replaced at its JavaScript boundary:
 * register, token refresh, permission change, setUser with its hash (identity verification on),
 * an opened event, the inbox and preferences, checked in the database and through the API.
 */
describe('the React Native SDK against the running service (docs/api.md#react-native-sdk)', () => {
  let fakes: FakeProviders | undefined;
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  const ctx = useTestApp(() => ({ module: AllModule, env: fakes!.env }));
  afterAll(() => fakes?.stop());
  const tenant = useTenantWithProviders(
    {
      ctx,
      get fakes() {
        return fakes!;
      },
    },
    'React Native SDK',
  );
  let baseUrl: string;
  let clientToken: string;
  let secret: string;
  const topic = `deals-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    const server = ctx.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // What an app ships: a token that registers, reports and acts for its own user only.
    clientToken = await newToken(ctx, tenant.appId, ['installations:write', 'events:write', 'users:self']);
    secret = (await ctx.get(AppsService).identitySecret(tenant.appId, {}))!.secret;
    await ctx.get(AppsService).updateSettings(tenant.appId, { identity_verification: true });
    await ctx.http().put(`/api/v1/topics/${topic}`).set(bearer(tenant.token)).send({ name: 'Deals', default: 'subscribed' }).expect(201);
  });

  const hash = (userId: string) => createHmac('sha256', secret).update(userId).digest('hex');
  const installation = async (id: string) => (await ctx.http().get(`/api/v1/installations/${id}`).set(bearer(tenant.token))).body.data;
  const stored = async (id: string) =>
    (
      await ctx.db.query<{ push_token: string; permission: string; user_id: string | null }[]>(
        'SELECT push_token, permission, user_id FROM installations WHERE app_id = $1 AND installation_id = $2',
        [tenant.appId, id],
      )
    )[0];

  describe.each([
    ['@react-native-firebase/messaging', 'ios', firebaseDevice],
    ['expo-notifications', 'android', expoDevice],
    ['@react-native-firebase/messaging', 'android', firebaseDevice],
    ['expo-notifications', 'ios', expoDevice],
  ] as const)('%s on %s', (_library, platform, makeDevice) => {
    const device = makeDevice(platform);
    const appState = new FakeAppState();
    const userId = `rn-${randomUUID()}`;
    let push: PushClient;

    afterAll(() => push?.close());

    it('registers after the permission is granted (PUT), and not before', async () => {
      push = await PushClient.init({
        baseUrl,
        token: clientToken,
        storage: new MemoryStorage(),
        ...device.options,
        appState,
        device: { appVersion: '3.2.0', locale: 'de-DE', timezone: 'Europe/Berlin' },
        onError: (error) => {
          throw error;
        },
      });
      expect((await ctx.http().get(`/api/v1/installations/${push.installationId}`).set(bearer(tenant.token))).status).toBe(404);
      await expect(push.requestPermission()).resolves.toBe('granted');
      expect(await installation(push.installationId)).toMatchObject({
        platform,
        push_provider: platform === 'ios' ? 'apns' : 'fcm',
        permission: 'granted',
        user_id: null,
        device: { app_version: '3.2.0', locale: 'de-DE', timezone: 'Europe/Berlin' },
      });
      expect(await stored(push.installationId)).toMatchObject({ push_token: device.token });
    });

    it('setUser with the hash from the backend binds the user; a wrong hash is refused and changes nothing', async () => {
      await push.setUser(userId, hash(userId));
      expect(await stored(push.installationId)).toMatchObject({ user_id: userId });
      const refused = (await push.setUser('mallory', hash(userId)).catch((e: unknown) => e)) as PushApiError;
      expect(refused).toBeInstanceOf(PushApiError);
      expect(refused.errors).toEqual({ user_id_hash: ['The user_id_hash does not match user_id.'] });
      expect(await stored(push.installationId)).toMatchObject({ user_id: userId });
    });

    it("a token refresh reaches the service as a PATCH with the user's proof", async () => {
      const next = device.rotate();
      await waitFor(async () => (await stored(push.installationId)).push_token === next, 'the new token to be stored');
      expect((await installation(push.installationId)).user_id).toBe(userId);
    });

    it('a permission changed in the settings is reported when the app comes back to the foreground', async () => {
      device.setPermission(false);
      appState.foreground();
      await waitFor(async () => (await stored(push.installationId)).permission === 'denied', 'permission denied');
      device.setPermission(true);
      appState.foreground();
      await waitFor(async () => (await stored(push.installationId)).permission === 'granted', 'permission granted again');
    });

    it('reports the tap on a delivered notification as opened (with the action button on Expo)', async () => {
      const sent = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .send({ recipients: { user_ids: [userId] }, notification: { title: 'Deal', body: 'Half price' }, options: { channels: ['push', 'inbox'] } })
        .expect(202);
      const id = sent.body.data.id as string;
      expect((await notificationCompleted(ctx, tenant.token, id)).statistics).toMatchObject({ accepted: 1, inbox_stored: 1 });
      const action = push.library === 'expo' ? 'view-deal' : null;
      device.tap(id, action);
      const events = await waitFor(async () => {
        const rows = await ctx.db.query<{ type: string; action: string | null }[]>(
          `SELECT e.type, e.action FROM notification_events e JOIN installations i ON i.id = e.installation_id
            WHERE e.notification_id = $1 AND i.installation_id = $2`,
          [id, push.installationId],
        );
        return rows.length > 0 ? rows : null;
      }, 'the opened event');
      expect(events).toEqual([{ type: 'opened', action }]);
      expect((await ctx.http().get(`/api/v1/notifications/${id}`).set(bearer(tenant.token))).body.data.statistics).toMatchObject({ opened: 1 });
    });

    it("reads and marks the user's inbox, and streams its unread count", async () => {
      const page = await push.inbox.list();
      expect(page.meta.unread).toBe(1);
      expect(page.data).toEqual([expect.objectContaining({ user_id: userId, title: 'Deal', read_at: null })]);
      expect((await push.inbox.markRead(page.data[0].id)).read_at).toEqual(expect.any(String));
      const server = await ctx.http().get(`/api/v1/users/${userId}/inbox?state=unread`).set(bearer(tenant.token)).expect(200);
      expect(server.body.meta.unread).toBe(0);
      const first = await new Promise<InboxEvent>((resolve) => {
        const stop = push.inbox.subscribe((event) => {
          stop();
          resolve(event);
        });
      });
      expect(first).toEqual({ type: 'unread', unread: 0 });
    });

    it("changes the user's preferences", async () => {
      expect((await push.preferences.get()).topics[topic]).toEqual({ subscribed: true, source: 'default' });
      expect((await push.preferences.update({ topics: { [topic]: false }, channels: { inbox: false } })).topics[topic]).toEqual({
        subscribed: false,
        source: 'user',
      });
      const server = await ctx.http().get(`/api/v1/users/${userId}/preferences`).set(bearer(tenant.token)).expect(200);
      expect(server.body.data).toMatchObject({ topics: { [topic]: { subscribed: false, source: 'user' } }, channels: { push: true, inbox: false } });
    });
  });
});
