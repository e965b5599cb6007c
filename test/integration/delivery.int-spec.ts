import { apnsToken, bearer, fcmToken, newApp, newInstallation, newToken } from '../support/factories';
import { notificationCompleted, readNotification } from '../support/notifications';
import { APNS_TOPIC } from '../support/providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitForQueues } from '../support/wait-for-queues';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';

/**
 * The whole path in one process (APP_MODE=all): API send, fan-out, delivery through the three
 * providers (loopback fakes speaking the real protocols), statistics and client events.
 */
describe('delivery (docs/api.md#notification-resource, docs/api.md#reads-and-events, docs/api.md#delivery, docs/api.md#what-a-device-receives)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack);

  const send = (body: Record<string, unknown>, token = tenant.token) =>
    ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(token))
      .send({ notification: { title: 'Hello', body: 'World' }, ...body });
  const read = (id: string, token = tenant.token) => readNotification(ctx, token, id);
  const completed = (id: string, token = tenant.token) => notificationCompleted(ctx, token, id);
  const ios = (body: Record<string, unknown> = {}) => newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), ...body });
  const android = (body: Record<string, unknown> = {}) => newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), ...body });
  const web = (body: Record<string, unknown> = {}) =>
    newInstallation(ctx, tenant.token, { platform: 'web', push_token: undefined, web_push_subscription: stack.fakes.web.createSubscription(), ...body });
  const tokenOf = async (installationId: string) =>
    (await ctx.db.query(`SELECT push_token, web_push_subscription FROM installations WHERE id = $1`, [installationId]))[0];

  it('a mixed send reaches every eligible installation once and ends with exact statistics', async () => {
    // alice: one of each platform; bob: denied + invalidated; carol: a token that fails twice with 503;
    // dave: no installation; erin: tokens every provider refuses for good.
    const alice = [await ios({ user_id: 'alice' }), await android({ user_id: 'alice' }), await web({ user_id: 'alice' })];
    await ios({ user_id: 'bob', permission: 'denied' });
    const bobAndroid = await android({ user_id: 'bob' });
    await ctx.db.query(`UPDATE installations SET invalidated_at = now(), invalid_reason = 'Unregistered' WHERE id = $1`, [bobAndroid.id]);
    const carol = await ios({ user_id: 'carol' });
    const carolToken = (await tokenOf(carol.id)).push_token;
    stack.fakes.apns.script(carolToken, [
      { status: 503, reason: 'ServiceUnavailable' },
      { status: 503, reason: 'ServiceUnavailable' },
    ]);
    const erin = [await ios({ user_id: 'erin' }), await android({ user_id: 'erin' }), await web({ user_id: 'erin' })];
    const erinTokens = await Promise.all(erin.map((i) => tokenOf(i.id)));
    stack.fakes.apns.script(erinTokens[0].push_token, [{ status: 410, reason: 'Unregistered' }]);
    stack.fakes.fcm.script(erinTokens[1].push_token, [{ status: 404, errorCode: 'UNREGISTERED' }]);
    stack.fakes.web.script(erinTokens[2].web_push_subscription.endpoint, [{ status: 410 }]);

    const res = await send({ recipients: { user_ids: ['alice', 'bob', 'carol', 'dave', 'erin'] } });
    expect(res.status).toBe(202);
    const done = await completed(res.body.data.id);
    expect(done.target_users).toBe(5);
    expect(done.statistics).toEqual({
      users: 4,
      installations: 9,
      accepted: 4,
      failed: 3,
      skipped: 2,
      received: 0,
      displayed: 0,
      opened: 0,
      inbox_stored: 0,
      inbox_read: 0,
    });
    expect(done.processing_started_at).not.toBeNull();
    expect(done.completed_at >= done.processing_started_at).toBe(true);

    // Exactly one accepted message per eligible installation; carol's after two retries. Counted
    // once no job is left, so a duplicate job would have sent by then.
    await waitForQueues(ctx);
    const aliceTokens = await Promise.all(alice.map((i) => tokenOf(i.id)));
    expect(stack.fakes.apns.requests.filter((r) => r.token === aliceTokens[0].push_token && r.status === 200)).toHaveLength(1);
    expect(stack.fakes.fcm.requests.filter((r) => r.token === aliceTokens[1].push_token && r.status === 200)).toHaveLength(1);
    expect(stack.fakes.web.requests.filter((r) => r.endpoint === aliceTokens[2].web_push_subscription.endpoint && r.status === 201)).toHaveLength(1);
    expect(stack.fakes.apns.requests.filter((r) => r.token === carolToken).map((r) => r.status)).toEqual([503, 503, 200]);

    // Refusals for good invalidate the installation with the provider's reason.
    const after = await Promise.all(
      erin.map(async (i) => (await ctx.http().get(`/api/v1/installations/${i.installation_id}`).set(bearer(tenant.token))).body.data),
    );
    expect(after.map((i) => i.invalid_reason)).toEqual(['Unregistered', 'UNREGISTERED', expect.any(String)]);
    for (const i of after) expect(i.invalidated_at).not.toBeNull();
    const reasons = await ctx.db.query(`SELECT status, reason, count(*)::int AS n FROM deliveries WHERE notification_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`, [
      done.id,
    ]);
    expect(reasons).toEqual([
      { status: 'accepted', reason: null, n: 4 },
      { status: 'failed', reason: expect.any(String), n: expect.any(Number) },
      ...(reasons.length > 2 ? reasons.slice(2, -2) : []),
      { status: 'skipped', reason: 'Invalidated', n: 1 },
      { status: 'skipped', reason: 'PermissionDenied', n: 1 },
    ]);

    // An invalidated installation is revived by a new token and gets the next send.
    const fresh = apnsToken();
    const revived = await ctx
      .http()
      .patch(`/api/v1/installations/${erin[0].installation_id}`)
      .set(bearer(tenant.token))
      .send({ push_token: fresh })
      .expect(200);
    expect(revived.body.data.invalidated_at).toBeNull();
    const second = await send({ recipients: { user_ids: ['erin'] }, options: { platforms: ['ios'] } });
    const secondDone = await completed(second.body.data.id);
    expect(secondDone.statistics).toMatchObject({ installations: 3, accepted: 1, skipped: 2 });
    expect(stack.fakes.apns.requests.filter((r) => r.token === fresh && r.status === 200)).toHaveLength(1);
  });

  it('sends the payloads and headers of docs/api.md#what-a-device-receives to each provider', async () => {
    const user = `payload-${Date.now()}`;
    const [i, a, w] = [await ios({ user_id: user }), await android({ user_id: user }), await web({ user_id: user })];
    const res = await send({
      recipients: { user_ids: [user] },
      notification: { title: 'Order shipped', body: 'On its way', image_url: 'https://cdn.example.com/box.png', action_url: 'myapp://orders/42' },
      data: { order_id: 42, carrier: 'DHL', tags: ['a'] },
      options: { ttl: 3600, priority: 'normal', badge: 2, sound: 'chime.caf' },
    });
    const id = res.body.data.id;
    await completed(id);
    const iosToken = (await tokenOf(i.id)).push_token;
    const apnsReq = stack.fakes.apns.requests.find((r) => r.token === iosToken)!;
    expect(apnsReq.payload).toEqual({
      aps: { alert: { title: 'Order shipped', body: 'On its way' }, sound: 'chime.caf', badge: 2, 'mutable-content': 1 },
      notification_id: id,
      image_url: 'https://cdn.example.com/box.png',
      action_url: 'myapp://orders/42',
      data: { order_id: 42, carrier: 'DHL', tags: ['a'] },
    });
    expect(apnsReq.headers).toMatchObject({ 'apns-push-type': 'alert', 'apns-topic': APNS_TOPIC, 'apns-priority': '5', 'apns-collapse-id': id });
    const expiration = Number(apnsReq.headers['apns-expiration']);
    expect(Math.abs(expiration - (Math.floor(Date.now() / 1000) + 3600))).toBeLessThan(120);

    const fcmTokenValue = (await tokenOf(a.id)).push_token;
    const fcmReq = stack.fakes.fcm.requests.find((r) => r.token === fcmTokenValue)!;
    expect(fcmReq.message).toEqual({
      token: fcmTokenValue,
      notification: { title: 'Order shipped', body: 'On its way', image: 'https://cdn.example.com/box.png' },
      data: { notification_id: id, action_url: 'myapp://orders/42', order_id: '42', carrier: 'DHL', tags: '["a"]' },
      android: { priority: 'NORMAL', ttl: '3600s', collapse_key: id },
    });

    const endpoint = (await tokenOf(w.id)).web_push_subscription.endpoint;
    const webReq = stack.fakes.web.requests.find((r) => r.endpoint === endpoint)!;
    expect(webReq.payload).toEqual({
      notification_id: id,
      title: 'Order shipped',
      body: 'On its way',
      image_url: 'https://cdn.example.com/box.png',
      action_url: 'myapp://orders/42',
      data: { order_id: 42, carrier: 'DHL', tags: ['a'] },
    });
    expect(webReq.headers).toMatchObject({ ttl: '3600', urgency: 'normal', topic: Buffer.from(id.replace(/-/g, ''), 'hex').toString('base64url') });
  });

  it('options.platforms skips the other platforms, and a collapse_id is used on every provider', async () => {
    const user = `platforms-${Date.now()}`;
    const [i, , w] = [await ios({ user_id: user }), await android({ user_id: user }), await web({ user_id: user })];
    const res = await send({ recipients: { user_ids: [user] }, options: { platforms: ['ios', 'web'], collapse_id: 'promo-7' } });
    const done = await completed(res.body.data.id);
    expect(done.statistics).toMatchObject({ users: 1, installations: 3, accepted: 2, skipped: 1, failed: 0 });
    const skipped = await ctx.db.query(`SELECT platform, reason FROM deliveries WHERE notification_id = $1 AND status = 'skipped'`, [done.id]);
    expect(skipped).toEqual([{ platform: 'android', reason: 'PlatformExcluded' }]);
    const iosToken = (await tokenOf(i.id)).push_token;
    expect(stack.fakes.apns.requests.find((r) => r.token === iosToken)!.headers['apns-collapse-id']).toBe('promo-7');
    const endpoint = (await tokenOf(w.id)).web_push_subscription.endpoint;
    const topic = stack.fakes.web.requests.find((r) => r.endpoint === endpoint)!.headers.topic;
    expect(topic).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('a stored Web Push endpoint on a private address is never connected to: invalidated, with the reason', async () => {
    // Written straight into the table, as a row stored before registration refused such endpoints.
    const user = `ssrf-${Date.now()}`;
    const w = await web({ user_id: user });
    const subscription = (await tokenOf(w.id)).web_push_subscription;
    const loopback = subscription.endpoint.replace('https://localhost:', 'https://127.0.0.1:');
    await ctx.db.query(`UPDATE installations SET web_push_subscription = $2::jsonb WHERE id = $1`, [
      w.id,
      JSON.stringify({ ...subscription, endpoint: loopback }),
    ]);
    const before = stack.fakes.web.requests.length;
    const res = await send({ recipients: { user_ids: [user] } });
    const done = await completed(res.body.data.id);
    expect(done.statistics).toMatchObject({ installations: 1, accepted: 0, failed: 1 });
    expect(await ctx.db.query(`SELECT status, reason FROM deliveries WHERE notification_id = $1`, [done.id])).toEqual([
      { status: 'failed', reason: 'EndpointNotAllowed' },
    ]);
    const read = await ctx.http().get(`/api/v1/installations/${w.installation_id}`).set(bearer(tenant.token)).expect(200);
    expect(read.body.data.invalid_reason).toBe('EndpointNotAllowed');
    expect(stack.fakes.web.requests.length).toBe(before);
  });

  it('a deleted installation is not sent to', async () => {
    const user = `deleted-${Date.now()}`;
    const gone = await ios({ user_id: user });
    const goneToken = (await tokenOf(gone.id)).push_token;
    await ios({ user_id: user });
    await ctx.http().delete(`/api/v1/installations/${gone.installation_id}`).set(bearer(tenant.token)).expect(204);
    const res = await send({ recipients: { user_ids: [user] } });
    const done = await completed(res.body.data.id);
    expect(done.statistics).toMatchObject({ users: 1, installations: 1, accepted: 1 });
    expect(stack.fakes.apns.requests.filter((r) => r.token === goneToken)).toHaveLength(0);
  });

  it('a send with no installation at all completes at once with zero counters', async () => {
    const res = await send({ recipients: { user_ids: ['nobody-1', 'nobody-2'] } });
    const done = await completed(res.body.data.id);
    expect(done.target_users).toBe(2);
    expect(done.statistics).toEqual({
      users: 0,
      installations: 0,
      accepted: 0,
      failed: 0,
      skipped: 0,
      received: 0,
      displayed: 0,
      opened: 0,
      inbox_stored: 0,
      inbox_read: 0,
    });
  });

  it('a token that keeps failing with 503 fails after DELIVERY_MAX_ATTEMPTS, honouring Retry-After', async () => {
    const user = `flaky-${Date.now()}`;
    const inst = await android({ user_id: user });
    const token = (await tokenOf(inst.id)).push_token;
    stack.fakes.fcm.script(
      token,
      Array.from({ length: 10 }, () => ({ status: 503, errorCode: 'UNAVAILABLE' as const, retryAfter: 1 })),
    );
    const started = Date.now();
    const res = await send({ recipients: { user_ids: [user] } });
    const done = await completed(res.body.data.id);
    expect(done.statistics).toMatchObject({ installations: 1, failed: 1, accepted: 0 });
    expect(stack.fakes.fcm.requests.filter((r) => r.token === token)).toHaveLength(5);
    // Four waits of at least the one-second Retry-After, although the base delay is 20 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
    const [row] = await ctx.db.query(`SELECT attempts, reason FROM deliveries WHERE notification_id = $1`, [done.id]);
    expect(row).toEqual({ attempts: 5, reason: 'UNAVAILABLE' });
    const installation = await ctx.http().get(`/api/v1/installations/${inst.installation_id}`).set(bearer(tenant.token));
    expect(installation.body.data.invalidated_at).toBeNull();
  }, 30_000);

  describe('client events (docs/api.md#reads-and-events)', () => {
    let notificationId: string;
    let target: string;
    let eventToken: string;

    beforeAll(async () => {
      const user = `events-${Date.now()}`;
      target = (await ios({ user_id: user })).installation_id;
      const res = await send({ recipients: { user_ids: [user] } });
      notificationId = res.body.data.id;
      await completed(notificationId);
      eventToken = await newToken(ctx, tenant.appId, ['events:write', 'installations:write']);
    });

    const event = (body: Record<string, unknown>, id = notificationId, token = eventToken) =>
      ctx.http().post(`/api/v1/notifications/${id}/events`).set(bearer(token)).send(body);

    it('counts each type once per installation; repeats are accepted and ignored', async () => {
      const first = await event({ installation_id: target, type: 'received' });
      expect(first.status).toBe(202);
      expect(first.body.data).toMatchObject({ notification_id: notificationId, installation_id: target, type: 'received', counted: true });
      const repeat = await event({ installation_id: target, type: 'received', occurred_at: '2026-11-22T10:00:00.000Z' });
      expect(repeat.status).toBe(202);
      expect(repeat.body.data.counted).toBe(false);
      await event({ installation_id: target, type: 'displayed' }).expect(202);
      await event({ installation_id: target, type: 'opened', occurred_at: '2026-11-22T10:00:05+01:00' }).expect(202);
      await Promise.all(Array.from({ length: 5 }, () => event({ installation_id: target, type: 'opened' })));
      expect((await read(notificationId)).statistics).toMatchObject({ received: 1, displayed: 1, opened: 1 });
    });

    it('422 for an installation that was not a target, 404 for an unknown notification', async () => {
      const stranger = await ios({ user_id: 'someone-else' });
      const res = await event({ installation_id: stranger.installation_id, type: 'opened' });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ installation_id: ['The installation_id is not a target of this notification.'] });
      const missing = await event({ installation_id: target, type: 'opened' }, '00000000-0000-4000-8000-000000000000');
      expect(missing.status).toBe(404);
    });

    it('validates the body and needs events:write', async () => {
      const bad = await event({ installation_id: target, type: 'clicked', occurred_at: 'yesterday' });
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.errors).sort()).toEqual(['occurred_at', 'type']);
      const reader = await newToken(ctx, tenant.appId, ['notifications:read']);
      expect((await event({ installation_id: target, type: 'opened' }, notificationId, reader)).status).toBe(403);
    });

    it("another app's token gets 404", async () => {
      const other = await newApp(ctx, 'Other');
      const res = await event({ installation_id: target, type: 'opened' }, notificationId, other.token);
      expect(res.status).toBe(404);
    });
  });

  it('reuses one APNs provider token and few HTTP/2 sessions across all of the above', () => {
    expect(stack.fakes.apns.distinctJwts()).toBe(1);
    expect(stack.fakes.apns.sessions).toBeLessThanOrEqual(8);
    expect(stack.fakes.fcm.tokenRequests.filter((r) => r.status === 200)).toHaveLength(1);
  });
});
