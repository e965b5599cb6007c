import { randomUUID } from 'node:crypto';
import webpush from 'web-push';
import { CredentialsService } from '../../src/credentials/credentials.service';
import { UNIFIEDPUSH_DISCOVERY } from '../fakes';
import { bearer, fcmToken, newApp, newInstallation } from '../support/factories';
import { notificationCompleted, outcomesByInstallation } from '../support/notifications';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';

/**
 * UnifiedPush and the Installation's push_provider (docs/api.md#unifiedpush, docs/api.md#push-provider,
 * contract 28): an Android installation registered with a distributor's endpoint is delivered over the
 * Web Push code (RFC 8030 + 8291 + 8292) to the fake, which acts as the distributor and decrypts.
 */
describe('UnifiedPush (docs/api.md#unifiedpush)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'UnifiedPush');
  beforeEach(() => stack.fakes.web.reset());

  const distributorEndpoint = () => stack.fakes.web.createSubscription({ unifiedPush: true });
  const unifiedPush = (body: Record<string, unknown> = {}) =>
    newInstallation(ctx, tenant.token, {
      platform: 'android',
      push_token: undefined,
      push_provider: 'unifiedpush',
      web_push_subscription: distributorEndpoint(),
      ...body,
    });
  const put = (body: Record<string, unknown>, id = `inst-${randomUUID()}`) =>
    ctx.http().put(`/api/v1/installations/${id}`).set(bearer(tenant.token)).send(body);
  const send = (body: Record<string, unknown>) =>
    ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ notification: { title: 'Hello', body: 'World' }, ...body });
  const trace = (id: string) => outcomesByInstallation(ctx, tenant.token, id);

  it('registers an Android installation with a distributor endpoint; the resource says push_provider', async () => {
    const made = await unifiedPush();
    expect(made).toMatchObject({ platform: 'android', push_provider: 'unifiedpush' });
    expect(made).not.toHaveProperty('web_push_subscription');
    const fcm = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken() });
    const read = await ctx.http().get(`/api/v1/installations/${fcm.installation_id}`).set(bearer(tenant.token)).expect(200);
    expect(read.body.data.push_provider).toBe('fcm');
    expect((await newInstallation(ctx, tenant.token)).push_provider).toBe('apns');
  });

  it('applies the Web Push endpoint rules (contract 4.2) to the distributor endpoint', async () => {
    const keys = distributorEndpoint().keys;
    const cases: [string, string][] = [
      ['http://localhost/up/abc', 'The web_push_subscription.endpoint field must be an absolute https:// URL.'],
      [
        'https://ntfy.example.net/up/abc',
        'The web_push_subscription.endpoint field must be the URL of a push service this server accepts (WEB_PUSH_ALLOWED_HOSTS).',
      ],
    ];
    for (const [endpoint, message] of cases) {
      const res = await put({ platform: 'android', push_provider: 'unifiedpush', web_push_subscription: { endpoint, keys } });
      expect([res.status, res.body.errors]).toEqual([422, { 'web_push_subscription.endpoint': [message] }]);
    }
    const without = await put({ platform: 'android', push_provider: 'unifiedpush', push_token: fcmToken() });
    expect([without.status, without.body.errors]).toEqual([
      422,
      {
        push_token: ['The push_token field is prohibited when push_provider is unifiedpush; send web_push_subscription.'],
        web_push_subscription: ['The web_push_subscription field is required when push_provider is unifiedpush.'],
      },
    ]);
    const wrong = await put({ platform: 'ios', push_provider: 'unifiedpush', web_push_subscription: distributorEndpoint() });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.push_provider).toEqual(['The push_provider field must be apns when platform is ios.']);
  });

  it('delivers the message as one JSON object to the distributor, encrypted and VAPID-signed; FCM installations still get FCM', async () => {
    const user = `up-${randomUUID()}`;
    const up = await unifiedPush({ user_id: user });
    const fcm = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user });
    const res = await send({
      recipients: { user_ids: [user] },
      notification: { title: 'Shipped', body: 'Tomorrow', image_url: 'https://cdn.example.com/box.png', action_url: 'myapp://orders/42' },
      data: { order: 42 },
      options: { ttl: 600, priority: 'normal', web: { tag: 'not-for-android' } },
    });
    expect(res.status).toBe(202);
    const done = await notificationCompleted(ctx, tenant.token, res.body.data.id);
    expect(done.statistics).toMatchObject({ installations: 2, accepted: 2 });

    const [request] = stack.fakes.web.requests;
    expect(stack.fakes.web.requests).toHaveLength(1);
    expect(request).toMatchObject({ unifiedPush: true, status: 201, vapidSub: 'mailto:ops@example.com' });
    expect(request.headers).toMatchObject({ ttl: '600', urgency: 'normal', 'content-encoding': 'aes128gcm' });
    expect(request.text).toBe(
      JSON.stringify({
        notification_id: done.id,
        title: 'Shipped',
        body: 'Tomorrow',
        image_url: 'https://cdn.example.com/box.png',
        action_url: 'myapp://orders/42',
        data: { order: 42 },
      }),
    );
    expect(stack.fakes.fcm.requests.filter((r) => JSON.stringify(r.message).includes(done.id))).toHaveLength(1);
    expect(await trace(done.id)).toEqual({ [up.installation_id]: ['accepted', null], [fcm.installation_id]: ['accepted', null] });
  });

  it('is an android installation to options.platforms, and takes a silent send (the app decides what to show)', async () => {
    const user = `up-${randomUUID()}`;
    const up = await unifiedPush({ user_id: user });
    const webOnly = await send({ recipients: { user_ids: [user] }, options: { platforms: ['web'] } });
    expect(await trace((await notificationCompleted(ctx, tenant.token, webOnly.body.data.id)).id)).toEqual({
      [up.installation_id]: ['skipped', 'PlatformExcluded'],
    });
    const silent = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ recipients: { user_ids: [user] }, data: { sync: true }, options: { content_available: true, platforms: ['android'] } })
      .expect(202);
    const done = await notificationCompleted(ctx, tenant.token, silent.body.data.id);
    expect(await trace(done.id)).toEqual({ [up.installation_id]: ['accepted', null] });
    expect(JSON.parse(stack.fakes.web.requests.at(-1)!.text!)).toEqual({ notification_id: done.id, title: null, body: null, data: { sync: true } });
  });

  it('fails a message over the 4,096 bytes a distributor takes as PayloadTooLarge, without sending it; FCM takes the same send', async () => {
    const user = `up-${randomUUID()}`;
    const up = await unifiedPush({ user_id: user });
    const fcm = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user });
    // FCM counts keys and values (about 4,050 bytes here); the UnifiedPush JSON is larger than 3,993 bytes of plaintext.
    const res = await send({ recipients: { user_ids: [user] }, data: { blob: 'x'.repeat(3990) }, options: { platforms: ['android'] } });
    expect(res.status).toBe(202);
    const done = await notificationCompleted(ctx, tenant.token, res.body.data.id);
    expect(await trace(done.id)).toEqual({ [up.installation_id]: ['failed', 'PayloadTooLarge'], [fcm.installation_id]: ['accepted', null] });
    expect(stack.fakes.web.requests).toHaveLength(0);
    const read = await ctx.http().get(`/api/v1/installations/${up.installation_id}`).set(bearer(tenant.token)).expect(200);
    expect(read.body.data.invalidated_at).toBeNull();
  });

  it('invalidates on 404 and 410 from the distributor', async () => {
    const user = `up-${randomUUID()}`;
    const gone = await unifiedPush({ user_id: user });
    const missing = await unifiedPush({ user_id: user });
    const goneEndpoint = (await ctx.db.query(`SELECT web_push_subscription FROM installations WHERE id = $1`, [gone.id]))[0].web_push_subscription.endpoint;
    const missingEndpoint = (await ctx.db.query(`SELECT web_push_subscription FROM installations WHERE id = $1`, [missing.id]))[0].web_push_subscription
      .endpoint;
    stack.fakes.web.unsubscribe(goneEndpoint);
    stack.fakes.web.script(missingEndpoint, [{ status: 404 }]);
    const res = await send({ recipients: { user_ids: [user] } });
    const done = await notificationCompleted(ctx, tenant.token, res.body.data.id);
    expect(await trace(done.id)).toEqual({ [gone.installation_id]: ['failed', 'Gone'], [missing.installation_id]: ['failed', 'NotFound'] });
    for (const [installation, reason] of [
      [gone, 'Gone'],
      [missing, 'NotFound'],
    ] as const) {
      const read = await ctx.http().get(`/api/v1/installations/${installation.installation_id}`).set(bearer(tenant.token)).expect(200);
      expect(read.body.data).toMatchObject({ invalid_reason: reason, invalidated_at: expect.any(String), push_provider: 'unifiedpush' });
    }
  });

  it('switches an installation between FCM and UnifiedPush with the new token, which revives it', async () => {
    const fcm = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken() });
    const path = `/api/v1/installations/${fcm.installation_id}`;
    const refused = await ctx.http().patch(path).set(bearer(tenant.token)).send({ push_provider: 'unifiedpush' });
    expect([refused.status, refused.body.errors]).toEqual([
      422,
      { web_push_subscription: ['The web_push_subscription field is required when push_provider changes to unifiedpush.'] },
    ]);
    await ctx.db.query(`UPDATE installations SET invalidated_at = now(), invalid_reason = 'Unregistered' WHERE id = $1`, [fcm.id]);
    const switched = await ctx
      .http()
      .patch(path)
      .set(bearer(tenant.token))
      .send({ push_provider: 'unifiedpush', web_push_subscription: distributorEndpoint() });
    expect(switched.body.data).toMatchObject({ push_provider: 'unifiedpush', invalidated_at: null, invalid_reason: null });
    const row = (await ctx.db.query(`SELECT push_token, web_push_subscription FROM installations WHERE id = $1`, [fcm.id]))[0];
    expect([row.push_token, typeof row.web_push_subscription?.endpoint]).toEqual([null, 'string']);

    const back = await ctx.http().put(path).set(bearer(tenant.token)).send({ push_provider: 'fcm', push_token: fcmToken() }).expect(200);
    expect(back.body.data.push_provider).toBe('fcm');
    const after = (await ctx.db.query(`SELECT push_token, web_push_subscription FROM installations WHERE id = $1`, [fcm.id]))[0];
    expect([typeof after.push_token, after.web_push_subscription]).toEqual(['string', null]);
  });

  it('skips UnifiedPush installations as NoCredentials in an app without a VAPID key pair, and sends them in one with only that', async () => {
    const fcmOnly = await newApp(ctx, 'FCM only');
    const account = stack.fakes.fcm.createServiceAccount(`project-${fcmOnly.appId.slice(0, 8)}`);
    await ctx.get(CredentialsService).update(fcmOnly.appId, { fcm: { serviceAccount: JSON.stringify(account) } });
    const up = await newInstallation(ctx, fcmOnly.token, {
      platform: 'android',
      push_provider: 'unifiedpush',
      push_token: undefined,
      web_push_subscription: distributorEndpoint(),
    });
    const fcm = await newInstallation(ctx, fcmOnly.token, { platform: 'android', push_token: fcmToken() });
    const first = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(fcmOnly.token))
      .send({ recipients: { all: true }, notification: { title: 'Hi', body: 'There' } })
      .expect(202);
    const done = await notificationCompleted(ctx, fcmOnly.token, first.body.data.id);
    const rows = (await ctx.http().get(`/api/v1/notifications/${done.id}/deliveries`).set(bearer(fcmOnly.token)).expect(200)).body.data as Record<
      string,
      any
    >[];
    expect(Object.fromEntries(rows.map((d) => [d.installation_id, [d.status, d.reason]]))).toEqual({
      [up.installation_id]: ['skipped', 'NoCredentials'],
      [fcm.installation_id]: ['accepted', null],
    });

    const vapidOnly = await newApp(ctx, 'VAPID only');
    const vapid = webpush.generateVAPIDKeys();
    await ctx
      .get(CredentialsService)
      .update(vapidOnly.appId, { vapid: { subject: 'mailto:up@example.com', publicKey: vapid.publicKey, privateKey: vapid.privateKey } });
    const subscription = stack.fakes.web.createSubscription({ unifiedPush: true, applicationServerKey: vapid.publicKey });
    const up2 = await newInstallation(ctx, vapidOnly.token, {
      platform: 'android',
      push_provider: 'unifiedpush',
      push_token: undefined,
      web_push_subscription: subscription,
    });
    const fcm2 = await newInstallation(ctx, vapidOnly.token, { platform: 'android', push_token: fcmToken() });
    const second = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(vapidOnly.token))
      .send({ recipients: { all: true }, notification: { title: 'Hi', body: 'There' } })
      .expect(202);
    const done2 = await notificationCompleted(ctx, vapidOnly.token, second.body.data.id);
    const rows2 = (await ctx.http().get(`/api/v1/notifications/${done2.id}/deliveries`).set(bearer(vapidOnly.token)).expect(200)).body.data as Record<
      string,
      any
    >[];
    expect(Object.fromEntries(rows2.map((d) => [d.installation_id, [d.status, d.reason]]))).toEqual({
      [up2.installation_id]: ['accepted', null],
      [fcm2.installation_id]: ['skipped', 'NoCredentials'],
    });
    expect(stack.fakes.web.deliveredCount(subscription.endpoint)).toBe(1);
  });

  it('the fake distributor answers GET on an endpoint as the UnifiedPush spec says, and only on its own path', async () => {
    const endpoint = distributorEndpoint().endpoint;
    const res = await fetch(endpoint);
    expect([res.status, await res.json()]).toEqual([200, UNIFIEDPUSH_DISCOVERY]);
    // A browser's subscription is not a distributor's endpoint.
    const browser = stack.fakes.web.createSubscription().endpoint;
    expect((await fetch(browser)).status).toBe(405);
  });
});
