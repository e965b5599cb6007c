import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PushApiError, PushClient } from '../../clients/node/src/index';
import { apnsToken, installationId } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { AllModule } from '../../src/app.module';
import { AuditLog, cliActor } from '../../src/audit/audit-log.service';
import { useTestApp } from '../support/create-test-app';
import { startFakeProviders, type FakeProviders } from '../support/providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';

/**
 * The server SDK (clients/node, docs/api.md#server-sdk) against the service over a real port:
 * every resource of the API, called through the SDK's methods.
 */
describe('the server SDK against the running service (docs/api.md#server-sdk)', () => {
  let fakes: FakeProviders | undefined;
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  // APNS_CHANNELS_URL: Live Activity channels are managed at the APNs fake too.
  const ctx = useTestApp(() => ({ module: AllModule, env: { ...fakes!.env, APNS_CHANNELS_URL: fakes!.apns.baseUrl } }));
  afterAll(() => fakes?.stop());
  const tenant = useTenantWithProviders(
    {
      ctx,
      get fakes() {
        return fakes!;
      },
    },
    'Node SDK',
  );
  let server: Server;
  let push: PushClient;

  beforeAll(async () => {
    server = ctx.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    push = new PushClient({ baseUrl, token: tenant.token, retry: { sleep: async () => {} } });
  });

  it('reads the app', async () => {
    expect((await push.app.get()).data.id).toBe(tenant.appId);
  });

  it('registers, updates, reads and deletes an installation; a 404 and a 422 are PushApiErrors', async () => {
    const id = installationId();
    const created = await push.installations.put(id, { platform: 'ios', push_token: apnsToken(), user_id: 'sdk-user-1' });
    expect(created.data).toMatchObject({ installation_id: id, platform: 'ios', user_id: 'sdk-user-1' });
    expect((await push.installations.patch(id, { user_id: 'sdk-user-2' })).data.user_id).toBe('sdk-user-2');
    expect((await push.installations.get(id)).data.installation_id).toBe(id);
    expect(await push.installations.delete(id)).toBeUndefined();

    const missing = await push.installations.get(`missing-${randomUUID()}`).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PushApiError);
    expect(missing).toMatchObject({ status: 404, message: 'Not Found' });
    const invalid = (await push.installations.put(installationId(), { platform: 'ios' } as never).catch((e: unknown) => e)) as PushApiError;
    expect(invalid).toBeInstanceOf(PushApiError);
    expect(invalid.status).toBe(422);
    expect(invalid.errors).toEqual({ push_token: [expect.any(String)] });
  });

  it('sends with an Idempotency-Key (the same key answers the first send), lists, iterates, reads deliveries, records an event and cancels', async () => {
    const userId = `sdk-${randomUUID()}`;
    const device = installationId();
    await push.installations.put(device, { platform: 'ios', push_token: apnsToken(), user_id: userId });
    const body = { recipients: { user_ids: [userId] }, notification: { title: 'Shipped', body: 'On its way' } };
    const sent = await push.notifications.send(body);
    const again = await push.notifications.send(body);
    expect(again.data.id).not.toBe(sent.data.id);
    const key = randomUUID();
    const first = await push.notifications.send(body, { headers: { 'Idempotency-Key': key } });
    expect((await push.notifications.send(body, { headers: { 'Idempotency-Key': key } })).data.id).toBe(first.data.id);

    await notificationCompleted(ctx, tenant.token, sent.data.id);
    expect((await push.notifications.get(sent.data.id)).data.statistics).toMatchObject({ accepted: 1 });
    const ids: string[] = [];
    for await (const notification of push.notifications.iterate({ limit: 1 })) ids.push(notification.id);
    expect(ids).toEqual(expect.arrayContaining([sent.data.id, again.data.id, first.data.id]));
    expect(new Set(ids).size).toBe(ids.length);
    expect((await push.notifications.list({ limit: 1 })).meta.next_cursor).toEqual(expect.any(String));

    const deliveries = [];
    for await (const delivery of push.notifications.iterateDeliveries(sent.data.id)) deliveries.push(delivery);
    expect(deliveries).toEqual([expect.objectContaining({ installation_id: device, status: 'accepted' })]);
    expect((await push.notifications.deliveries(sent.data.id)).data).toHaveLength(1);
    expect((await push.notifications.recordEvent(sent.data.id, { installation_id: device, type: 'opened' })).data).toMatchObject({ counted: true });

    const later = await push.notifications.send({ ...body, send_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await push.notifications.cancel(later.data.id)).data.canceled_at).toEqual(expect.any(String));
  });

  it('counts an audience', async () => {
    const userId = `sdk-${randomUUID()}`;
    await push.installations.put(installationId(), { platform: 'ios', push_token: apnsToken(), user_id: userId });
    expect((await push.audiences.count({ recipients: { user_ids: [userId] } })).data).toMatchObject({ installations: 1, users: 1 });
  });

  it("manages topics and a user's preferences", async () => {
    const key = `news-${randomUUID().slice(0, 8)}`;
    expect((await push.topics.put(key, { name: 'News', default: 'subscribed' })).data).toMatchObject({ key, name: 'News' });
    expect((await push.topics.get(key)).data.key).toBe(key);
    expect((await push.topics.list()).data.map((topic) => topic.key)).toContain(key);
    const userId = `sdk-${randomUUID()}`;
    expect((await push.users.preferences.get(userId)).data.topics[key]).toEqual({ subscribed: true, source: 'default' });
    const updated = await push.users.preferences.update(userId, { topics: { [key]: false } });
    expect(updated.data.topics[key]).toEqual({ subscribed: false, source: 'user' });
    expect(await push.topics.delete(key)).toBeUndefined();
  });

  it('saves a template in versions, reads, lists, previews and deletes it', async () => {
    const key = `welcome-${randomUUID().slice(0, 8)}`;
    const first = await push.templates.put(key, { name: 'Welcome', notification: { title: 'Hi {{ vars.name }}', body: 'Welcome' } });
    expect(first.data).toMatchObject({ key, version: 1 });
    expect((await push.templates.put(key, { name: 'Welcome', notification: { title: 'Hello {{ vars.name }}', body: 'Welcome' } })).data.version).toBe(2);
    expect((await push.templates.get(key)).data.notification.title).toBe('Hello {{ vars.name }}');
    expect((await push.templates.version(key, 1)).data.notification.title).toBe('Hi {{ vars.name }}');
    expect((await push.templates.list()).data.map((template) => template.key)).toContain(key);
    const preview = await push.templates.preview(key, { variables: { name: 'Ada' } });
    expect(JSON.stringify(preview.data.platforms)).toContain('Hello Ada');
    expect(await push.templates.delete(key)).toBeUndefined();
    await expect(push.templates.get(key)).rejects.toMatchObject({ status: 404 });
  });

  it("reads and iterates the app's audit log", async () => {
    const audit = ctx.app.get(AuditLog);
    const target = `sdk-${randomUUID()}`;
    for (const action of ['topic.put', 'topic.delete'] as const) await audit.record(cliActor(), { action, appId: tenant.appId, target });
    const page = await push.auditLog.list({ limit: 1 });
    expect(page.data).toHaveLength(1);
    expect(page.meta.next_cursor).not.toBeNull();
    const mine: string[] = [];
    for await (const entry of push.auditLog.iterate({ limit: 1 })) if (entry.target === target) mine.push(entry.action);
    expect(mine).toEqual(['topic.delete', 'topic.put']);
  });

  it("lists, iterates, marks, reads all of and streams a user's inbox", async () => {
    const userId = `sdk-${randomUUID()}`;
    for (const title of ['One', 'Two', 'Three']) {
      const sent = await push.notifications.send({ recipients: { user_ids: [userId] }, notification: { title, body: 'Hi' }, options: { channels: ['inbox'] } });
      await notificationCompleted(ctx, tenant.token, sent.data.id);
    }
    const page = await push.users.inbox.list(userId, { limit: 2 });
    expect(page.meta).toMatchObject({ unread: 3, next_cursor: expect.any(String) });
    const titles: (string | null)[] = [];
    for await (const message of push.users.inbox.iterate(userId, { limit: 2 })) titles.push(message.title);
    expect(titles).toEqual(['Three', 'Two', 'One']);
    expect((await push.users.inbox.mark(userId, page.data[0].id, { read: true })).data.read_at).toEqual(expect.any(String));
    expect((await push.users.inbox.readAll(userId)).data).toEqual({ updated: 2 });
    for await (const event of push.users.inbox.stream(userId)) {
      expect(event).toMatchObject({ event: 'unread', data: { unread: 0 } });
      break;
    }
  });

  it('registers a Live Activity, updates, reads and ends it; creates, lists, broadcasts to and deletes a channel', async () => {
    const device = installationId();
    await push.installations.put(device, { platform: 'ios', push_token: apnsToken() });
    const activityId = `activity-${randomUUID()}`;
    const activity = await push.liveActivities.put(activityId, { installation_id: device, attributes_type: 'DeliveryAttributes', push_token: apnsToken() });
    expect(activity.data).toMatchObject({ activity_id: activityId, status: 'active' });
    expect((await push.liveActivities.get(activityId)).data.activity_id).toBe(activityId);
    const update = await push.liveActivities.update(activityId, { event: 'update', content_state: { eta: 5 } });
    expect((await push.liveActivities.getUpdate(activityId, update.data.id)).data.id).toBe(update.data.id);
    expect(await push.liveActivities.delete(activityId)).toBeUndefined();
    expect((await push.liveActivities.get(activityId)).data.status).toBe('ended');

    const channel = await push.liveActivityChannels.create({ storage: 'none' });
    expect((await push.liveActivityChannels.list()).data.map((c) => c.id)).toContain(channel.data.id);
    const broadcast = await push.liveActivityChannels.broadcast(channel.data.id, { event: 'update', content_state: { score: '1-0' } });
    expect((await push.liveActivityChannels.getBroadcast(channel.data.id, broadcast.data.id)).data).toMatchObject({
      id: broadcast.data.id,
      channel_id: channel.data.id,
    });
    expect(await push.liveActivityChannels.delete(channel.data.id)).toBeUndefined();
  });
});
