import { randomBytes } from 'node:crypto';
import { apnsToken, bearer, fcmToken, hmsToken, installationId, newInstallation } from '../support/factories';
import { notificationCompleted, traceByInstallation } from '../support/notifications';
import { APNS_TOPIC, configureHms } from '../support/providers';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';

/**
 * Contract 28's widgets, FCM fields, silent Android sends and provider ids (docs/api.md#widgets,
 * docs/api.md#platform-fields, docs/api.md#silent-sends, docs/api.md#provider-message-ids), each
 * on the sandbox's fakes, which refuse what Apple and Google refuse.
 */
describe('widgets, FCM fields, provider message ids (contract 28)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Platforms2025');
  beforeAll(async () => {
    await configureHms(ctx, tenant.appId, stack.fakes);
  });

  const post = (body: Record<string, unknown>) => ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).send(body);
  const completed = (id: string) => notificationCompleted(ctx, tenant.token, id);
  const put = (id: string, body: Record<string, unknown>) => ctx.http().put(`/api/v1/installations/${id}`).set(bearer(tenant.token)).send(body);
  const patch = (id: string, body: Record<string, unknown>) => ctx.http().patch(`/api/v1/installations/${id}`).set(bearer(tenant.token)).send(body);
  const widgetToken = () => randomBytes(32).toString('hex');
  const tokenOf = async (id: string): Promise<string> => (await ctx.db.query(`SELECT push_token FROM installations WHERE id = $1`, [id]))[0].push_token;
  const trace = (id: string) => traceByInstallation(ctx, tenant.token, id);

  describe('widget_push_token on the Installation (docs/api.md#widgets)', () => {
    it('is write-only: has_widget_token shows whether there is one; PUT and PATCH set it, lower-cased', async () => {
      const id = installationId();
      const token = widgetToken().toUpperCase();
      const made = await put(id, { platform: 'ios', push_token: apnsToken() }).expect(201);
      expect(made.body.data.has_widget_token).toBe(false);
      expect(made.body.data).not.toHaveProperty('widget_push_token');

      const patched = await patch(id, { widget_push_token: token }).expect(200);
      expect(patched.body.data.has_widget_token).toBe(true);
      expect(patched.body.data).not.toHaveProperty('widget_push_token');
      const [stored] = await ctx.db.query(`SELECT widget_push_token FROM installations WHERE installation_id = $1`, [id]);
      expect(stored.widget_push_token).toBe(token.toLowerCase());

      const read = await ctx.http().get(`/api/v1/installations/${id}`).set(bearer(tenant.token)).expect(200);
      expect(read.body.data.has_widget_token).toBe(true);
      // Deleting the installation forgets it with the other tokens.
      await ctx.http().delete(`/api/v1/installations/${id}`).set(bearer(tenant.token)).expect(204);
      const [gone] = await ctx.db.query(`SELECT widget_push_token FROM installations WHERE installation_id = $1`, [id]);
      expect(gone.widget_push_token).toBeNull();
    });

    it.each<[string, Record<string, unknown>, string]>([
      [
        'not hex',
        { platform: 'ios', push_token: 'a'.repeat(64), widget_push_token: 'z'.repeat(64) },
        'The widget_push_token field must be an APNs token (64 to 200 hexadecimal characters).',
      ],
      [
        'too short',
        { platform: 'ios', push_token: 'a'.repeat(64), widget_push_token: 'a'.repeat(63) },
        'The widget_push_token field must be at least 64 characters.',
      ],
      [
        'too long',
        { platform: 'ios', push_token: 'a'.repeat(64), widget_push_token: 'a'.repeat(201) },
        'The widget_push_token field must not be greater than 200 characters.',
      ],
      [
        'on android',
        { platform: 'android', push_token: fcmToken(), widget_push_token: 'a'.repeat(64) },
        'The widget_push_token field is prohibited when platform is android: WidgetKit is iOS only.',
      ],
    ])('422 for a widget_push_token %s', async (_what, body, message) => {
      const res = await put(installationId(), body);
      expect([res.status, res.body.errors]).toEqual([422, { widget_push_token: [message] }]);
    });
  });

  describe('options.widgets sends (docs/api.md#widgets)', () => {
    it.each<[string, Record<string, unknown>, string, string]>([
      [
        'with a notification',
        { notification: { title: 'Hi', body: 'There' }, options: { widgets: true } },
        'notification',
        'The notification field is prohibited when options.widgets is true: a widget push carries only content-changed.',
      ],
      [
        'with data',
        { data: { a: 1 }, options: { widgets: true } },
        'data',
        'The data field is prohibited when options.widgets is true: a widget push carries only content-changed.',
      ],
      [
        'with content_available',
        { options: { widgets: true, content_available: true } },
        'options.widgets',
        'The options.widgets field must not be given together with options.content_available or options.live_activity.',
      ],
      ['not a boolean', { options: { widgets: 'yes' } }, 'options.widgets', 'The options.widgets field must be true or false.'],
      [
        'false, without a notification',
        { options: { widgets: false } },
        'notification',
        'The notification field is required unless options.content_available or options.widgets is true.',
      ],
    ])('422 %s', async (_what, body, key, message) => {
      const res = await post({ recipients: { user_ids: ['w'] }, ...body });
      expect(res.status).toBe(422);
      expect(res.body.errors[key]).toEqual([message]);
    });

    it("sends Apple's widgets push to each iOS widget token; NoWidgetToken and PlatformExcluded in trace and statistics", async () => {
      const user = `widgets-${randomBytes(4).toString('hex')}`;
      const token = widgetToken();
      const holder = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: user, widget_push_token: token });
      const without = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: user });
      const phone = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user });
      const browser = await newInstallation(ctx, tenant.token, {
        platform: 'web',
        push_token: undefined,
        web_push_subscription: stack.fakes.web.createSubscription(),
        user_id: user,
      });

      const holderToken = await tokenOf(holder.id);
      const res = await post({ recipients: { user_ids: [user] }, options: { widgets: true } });
      expect(res.status).toBe(202);
      const id = res.body.data.id;
      const done = await completed(id);
      expect(done.statistics).toMatchObject({ installations: 4, accepted: 1, skipped: 3, failed: 0 });

      const sent = stack.fakes.apns.requests.filter((r) => r.token === token);
      expect(sent).toHaveLength(1);
      expect(sent[0].status).toBe(200);
      expect(sent[0].text).toBe('{"aps":{"content-changed":true}}');
      expect(sent[0].headers).toMatchObject({ 'apns-push-type': 'widgets', 'apns-topic': `${APNS_TOPIC}.push-type.widgets`, 'apns-priority': '5' });
      // The holder's device token got nothing.
      expect(stack.fakes.apns.requests.filter((r) => r.token === holderToken)).toEqual([]);

      const rows = await trace(id);
      expect(rows[holder.installation_id]).toMatchObject({ status: 'accepted', reason: null });
      expect(rows[without.installation_id]).toMatchObject({ status: 'skipped', reason: 'NoWidgetToken' });
      expect(rows[phone.installation_id]).toMatchObject({ status: 'skipped', reason: 'PlatformExcluded' });
      expect(rows[browser.installation_id]).toMatchObject({ status: 'skipped', reason: 'PlatformExcluded' });
    });
  });

  describe('FCM fields and silent Android sends (docs/api.md#platform-fields, docs/api.md#silent-sends)', () => {
    it('sends proxy in android.notification and the three booleans in android; Huawei gets none of them', async () => {
      const user = `fcm-${randomBytes(4).toString('hex')}`;
      const phone = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user });
      const huawei = await newInstallation(ctx, tenant.token, { platform: 'huawei', push_token: hmsToken(), user_id: user });
      const android = { proxy: 'deny', bandwidth_constrained_ok: true, restricted_satellite_ok: true, direct_boot_ok: false };
      const res = await post({ recipients: { user_ids: [user] }, notification: { title: 'Hi', body: 'There' }, options: { android } });
      expect(res.status).toBe(202);
      expect(res.body.data.options.android).toEqual(android);
      expect((await completed(res.body.data.id)).statistics).toMatchObject({ accepted: 2, failed: 0 });

      const phoneToken = await tokenOf(phone.id);
      const [fcm] = stack.fakes.fcm.requests.filter((r) => r.token === phoneToken);
      expect(fcm.status).toBe(200);
      expect((fcm.message as { android: unknown }).android).toEqual({
        priority: 'HIGH',
        collapse_key: res.body.data.id,
        bandwidth_constrained_ok: true,
        restricted_satellite_ok: true,
        direct_boot_ok: false,
        notification: { proxy: 'DENY' },
      });
      const huaweiToken = await tokenOf(huawei.id);
      const [hms] = stack.fakes.hms.requests.filter((r) => r.tokens.includes(huaweiToken));
      expect(JSON.stringify(hms.message)).not.toMatch(/proxy|bandwidth|satellite|direct_boot/);
    });

    it.each<[string, Record<string, unknown>, string, string]>([
      ['an unknown proxy', { proxy: 'sometimes' }, 'options.android.proxy', 'The selected options.android.proxy is invalid.'],
      ['a string boolean', { direct_boot_ok: 'true' }, 'options.android.direct_boot_ok', 'The options.android.direct_boot_ok field must be true or false.'],
      [
        'a number boolean',
        { bandwidth_constrained_ok: 1 },
        'options.android.bandwidth_constrained_ok',
        'The options.android.bandwidth_constrained_ok field must be true or false.',
      ],
      [
        'a null boolean',
        { restricted_satellite_ok: null },
        'options.android.restricted_satellite_ok',
        'The options.android.restricted_satellite_ok field must be true or false.',
      ],
    ])('422 for %s', async (_what, android, key, message) => {
      const res = await post({ recipients: { user_ids: ['x'] }, notification: { title: 'Hi', body: 'There' }, options: { android } });
      expect(res.status).toBe(422);
      expect(res.body.errors[key]).toEqual([message]);
    });

    it('a silent send reaches FCM at NORMAL priority unless options.priority is high', async () => {
      const phone = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken() });
      const token = await tokenOf(phone.id);
      const priorities: string[] = [];
      for (const options of [{ content_available: true }, { content_available: true, priority: 'high' }]) {
        const res = await post({ recipients: { installation_ids: [phone.installation_id] }, data: { sync: 'x' }, options });
        await completed(res.body.data.id);
        const [sent] = stack.fakes.fcm.requests.filter((r) => r.token === token && JSON.stringify(r.message).includes(res.body.data.id));
        priorities.push((sent.message as { android: { priority: string } }).android.priority);
      }
      expect(priorities).toEqual(['NORMAL', 'HIGH']);
    });
  });

  describe('provider_message_id in the trace (docs/api.md#provider-message-ids)', () => {
    it("is APNs' apns-id and apns-unique-id, FCM's name, Huawei's requestId, the push service's Location; null when not accepted", async () => {
      const user = `ids-${randomBytes(4).toString('hex')}`;
      const ios = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: user });
      const android = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user });
      const huawei = await newInstallation(ctx, tenant.token, { platform: 'huawei', push_token: hmsToken(), user_id: user });
      const web = await newInstallation(ctx, tenant.token, {
        platform: 'web',
        push_token: undefined,
        web_push_subscription: stack.fakes.web.createSubscription(),
        user_id: user,
      });
      const refused = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: user });
      stack.fakes.apns.script(await tokenOf(refused.id), [{ status: 400, reason: 'BadDeviceToken' }]);

      const res = await post({ recipients: { user_ids: [user] }, notification: { title: 'Hi', body: 'There' } });
      const id = res.body.data.id;
      expect((await completed(id)).statistics).toMatchObject({ accepted: 4, failed: 1 });
      const rows = await trace(id);

      const iosToken = await tokenOf(ios.id);
      const [apns] = stack.fakes.apns.requests.filter((r) => r.token === iosToken);
      expect(apns.uniqueId).toMatch(/^[0-9a-f-]{36}$/);
      expect(rows[ios.installation_id].provider_message_id).toBe(`${apns.apnsId} ${apns.uniqueId}`);
      const [fcm] = stack.fakes.fcm.requests.filter((r) => r.status === 200 && JSON.stringify(r.message).includes(id));
      expect(rows[android.installation_id].provider_message_id).toBe(fcm.name);
      expect(fcm.name).toMatch(/^projects\/[^/]+\/messages\/0:\d+%[0-9a-f]+$/);
      const [hms] = stack.fakes.hms.requests.filter((r) => r.status === 200 && JSON.stringify(r.message).includes(id));
      expect(rows[huawei.installation_id].provider_message_id).toBe(hms.requestId);
      const [push] = stack.fakes.web.requests.filter((r) => r.status === 201 && JSON.stringify(r.payload).includes(id));
      expect(rows[web.installation_id].provider_message_id).toBe(push.location);
      expect(push.location).toMatch(/^https:\/\/.+\/message\/[\w-]+$/);
      expect(rows[refused.installation_id]).toMatchObject({ status: 'failed', reason: 'BadDeviceToken', provider_message_id: null });

      const [stored] = await ctx.db.query(`SELECT provider_message_id FROM deliveries WHERE notification_id = $1 AND installation_id = $2`, [id, android.id]);
      expect(stored.provider_message_id).toBe(fcm.name);
    });
  });
});
