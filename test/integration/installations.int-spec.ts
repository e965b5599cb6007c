import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, installationId, newApp, newInstallation, TestTenant } from '../support/factories';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
const P256DH = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64url');
const AUTH = Buffer.alloc(16, 3).toString('base64url');
const subscription = (n = 1) => ({ endpoint: `https://fcm.googleapis.com/fcm/send/${n}`, keys: { p256dh: P256DH, auth: AUTH } });
const withEndpoint = (endpoint: string) => ({ endpoint, keys: { p256dh: P256DH, auth: AUTH } });

describe('installations (docs/api.md#installations)', () => {
  // WEB_PUSH_ALLOWED_HOSTS empty: the built-in list of public push services, as in production.
  const ctx = useTestApp({ env: { WEB_PUSH_ALLOWED_HOSTS: '' } });
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx);
  });

  const path = (id: string) => `/api/v1/installations/${encodeURIComponent(id)}`;
  const put = (id: string, body: object) => ctx.http().put(path(id)).set(bearer(tenant.token)).send(body);
  const patch = (id: string, body: object) => ctx.http().patch(path(id)).set(bearer(tenant.token)).send(body);
  const get = (id: string) => ctx.http().get(path(id)).set(bearer(tenant.token));
  const stored = async (id: string) => (await ctx.db.query(`SELECT * FROM installations WHERE app_id = $1 AND installation_id = $2`, [tenant.appId, id]))[0];

  describe('PUT (register or refresh)', () => {
    it('201 on create with every field present, then 200 on refresh', async () => {
      const id = installationId();
      const created = await put(id, {
        platform: 'ios',
        push_token: apnsToken(),
        user_id: 'user-1',
        permission: 'granted',
        device: { app_version: '1.2.3', os_version: '18.1', model: 'iPhone16,1', locale: 'en_GB', timezone: 'Europe/London' },
      });
      expect(created.status).toBe(201);
      const data = created.body.data;
      expect(Object.keys(data).sort()).toEqual(
        [
          'id',
          'installation_id',
          'platform',
          'push_provider',
          'permission',
          'device',
          'user_id',
          'registered_at',
          'last_seen_at',
          'identifier_updated_at',
          'permission_updated_at',
          'invalidated_at',
          'invalid_reason',
          'tags',
          'badge',
          'properties',
          'live_activity_types',
          'has_widget_token',
        ].sort(),
      );
      expect(data).toMatchObject({
        installation_id: id,
        platform: 'ios',
        push_provider: 'apns',
        permission: 'granted',
        user_id: 'user-1',
        device: { app_version: '1.2.3', os_version: '18.1', model: 'iPhone16,1', locale: 'en_GB', timezone: 'Europe/London' },
        invalidated_at: null,
        invalid_reason: null,
      });
      expect(data.id).toMatch(/^[0-9a-f-]{36}$/);
      for (const field of ['registered_at', 'last_seen_at', 'identifier_updated_at', 'permission_updated_at']) {
        expect(data[field]).toMatch(ISO_MS);
      }
      expect(JSON.stringify(created.body)).not.toContain('push_token');

      await tick();
      const refreshed = await put(id, {});
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.data.id).toBe(data.id);
      expect(refreshed.body.data.registered_at).toBe(data.registered_at);
      expect(refreshed.body.data.identifier_updated_at).toBe(data.identifier_updated_at);
      expect(new Date(refreshed.body.data.last_seen_at).getTime()).toBeGreaterThan(new Date(data.last_seen_at).getTime());
    });

    it('sets unset fields to null on create', async () => {
      const res = await put(installationId(), { platform: 'android', push_token: 'fcm-token-1' });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        user_id: null,
        permission: 'unknown',
        identifier_updated_at: null,
        permission_updated_at: null,
        device: { app_version: null, os_version: null, model: null, locale: null, timezone: null },
      });
    });

    it('registers a web installation with a push subscription (expirationTime accepted), never returning it', async () => {
      const res = await put(installationId(), { platform: 'web', web_push_subscription: { ...subscription(), expirationTime: null } });
      expect(res.status).toBe(201);
      expect(JSON.stringify(res.body)).not.toContain('fcm.googleapis.com');
      const row = await stored(res.body.data.installation_id);
      expect(row.web_push_subscription).toEqual(subscription());
    });

    it.each([
      [{}, 'platform', 'The platform field is required when the installation is registered.'],
      [{ platform: 'ios' }, 'push_token', 'The push_token field is required when platform is ios.'],
      [{ platform: 'android' }, 'push_token', 'The push_token field is required when platform is android.'],
      [{ platform: 'web' }, 'web_push_subscription', 'The web_push_subscription field is required when platform is web.'],
      [{ platform: 'ios', push_token: 'not-hex' }, 'push_token', 'The push_token field must be an APNs device token (64 to 200 hexadecimal characters).'],
      [
        { platform: 'web', push_token: 'x', web_push_subscription: subscription() },
        'push_token',
        'The push_token field is prohibited when platform is web; send web_push_subscription.',
      ],
      [{ platform: 'windows', push_token: 'x' }, 'platform', 'The selected platform is invalid.'],
      [{ platform: 'android', push_token: 'x', permission: 'maybe' }, 'permission', 'The selected permission is invalid.'],
      [{ platform: 'android', push_token: 'x', user_id: '' }, 'user_id', 'The user_id field must not be empty.'],
      [{ platform: 'android', push_token: 'x', user_id: 'u'.repeat(256) }, 'user_id', 'The user_id field must not be greater than 255 characters.'],
      [
        { platform: 'android', push_token: 'x', device: { model: 'm'.repeat(256) } },
        'device.model',
        'The device.model field must not be greater than 255 characters.',
      ],
      [{ platform: 'android', push_token: 'x', device: { colour: 'red' } }, 'device.colour', 'The device.colour field is not allowed.'],
      [
        { platform: 'web', web_push_subscription: { endpoint: 'http://insecure.example.com/x', keys: { p256dh: P256DH, auth: AUTH } } },
        'web_push_subscription.endpoint',
        'The web_push_subscription.endpoint field must be an absolute https:// URL.',
      ],
      [
        { platform: 'web', web_push_subscription: { endpoint: 'https://fcm.googleapis.com/x', keys: { p256dh: 'short', auth: AUTH } } },
        'web_push_subscription.keys.p256dh',
        'The web_push_subscription.keys.p256dh field must encode exactly 65 bytes.',
      ],
      [{ platform: 'android', push_token: 'x', extra: 1 }, 'extra', 'The extra field is not allowed.'],
    ])('422 on create for %j', async (body, field, message) => {
      const res = await put(installationId(), body);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toEqual([message]);
      expect(res.body.message).toMatch(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    });

    it('does not let the platform change', async () => {
      const inst = await newInstallation(ctx, tenant.token);
      const res = await put(inst.installation_id, { platform: 'android', push_token: 'x' });
      expect(res.status).toBe(422);
      expect(res.body.errors.platform).toEqual(['The platform field cannot be changed (the installation is ios).']);
    });

    it('concurrent PUTs of a new installation create it once', async () => {
      const id = installationId();
      const results = await Promise.all(Array.from({ length: 10 }, () => put(id, { platform: 'android', push_token: 'same-token' })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
      expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    });
  });

  describe('Web Push endpoints: public push services only (no requests to private addresses)', () => {
    const HTTPS = 'The web_push_subscription.endpoint field must be an absolute https:// URL.';
    const CREDENTIALS = 'The web_push_subscription.endpoint field must not contain a user name or password.';
    const ADDRESS = 'The web_push_subscription.endpoint field must name a public push service, not an IP address, localhost or a private host name.';
    const NOT_ALLOWED = 'The web_push_subscription.endpoint field must be the URL of a push service this server accepts (WEB_PUSH_ALLOWED_HOSTS).';
    const refused: [string, string][] = [
      ['http://fcm.googleapis.com/fcm/send/x', HTTPS],
      ['https://user:pass@fcm.googleapis.com/fcm/send/x', CREDENTIALS],
      ['https://127.0.0.1:3850/push/x', ADDRESS],
      ['https://[::1]:3850/push/x', ADDRESS],
      ['https://[::ffff:127.0.0.1]/push/x', ADDRESS],
      ['https://0x7f.1/push/x', ADDRESS],
      ['https://2130706433/push/x', ADDRESS],
      ['https://10.0.0.5/push/x', ADDRESS],
      ['https://169.254.169.254/latest/meta-data', ADDRESS],
      ['https://100.64.0.1/push/x', ADDRESS],
      ['https://[fd00::1]/push/x', ADDRESS],
      ['https://localhost:3850/push/x', ADDRESS],
      ['https://admin.localhost/push/x', ADDRESS],
      ['https://redis/push/x', ADDRESS],
      ['https://push.example.com/send/1', NOT_ALLOWED],
      ['https://fcm.googleapis.com.attacker.example/x', NOT_ALLOWED],
    ];

    it.each(refused)('PUT refuses %s', async (endpoint, message) => {
      const res = await put(installationId(), { platform: 'web', web_push_subscription: withEndpoint(endpoint) });
      expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 422, errors: { 'web_push_subscription.endpoint': [message] } });
    });

    it('PATCH refuses a private endpoint too, and keeps the stored one', async () => {
      const inst = await newInstallation(ctx, tenant.token, { platform: 'web', push_token: undefined, web_push_subscription: subscription(1) });
      const res = await patch(inst.installation_id, { web_push_subscription: withEndpoint('https://127.0.0.1:3850/push/x') });
      expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 422, errors: { 'web_push_subscription.endpoint': [ADDRESS] } });
      expect((await stored(inst.installation_id)).web_push_subscription.endpoint).toBe('https://fcm.googleapis.com/fcm/send/1');
    });

    it.each([
      'https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABh',
      'https://web.push.apple.com/QGuQyavXutnMH',
      'https://wns2-par02p.notify.windows.com/w/?token=BQYAAABk',
    ])('PUT accepts the public push service %s', async (endpoint) => {
      const res = await put(installationId(), { platform: 'web', web_push_subscription: withEndpoint(endpoint) });
      expect(res.status).toBe(201);
    });
  });

  describe('PATCH (update)', () => {
    it('200 with the installation; identifier_updated_at moves only when user_id changes', async () => {
      const inst = await newInstallation(ctx, tenant.token, { user_id: 'a' });
      await tick();
      const same = await patch(inst.installation_id, { user_id: 'a' });
      expect(same.status).toBe(200);
      expect(same.body.data.identifier_updated_at).toBe(inst.identifier_updated_at);
      expect(same.body.data.last_seen_at > inst.last_seen_at).toBe(true);

      await tick();
      const changed = await patch(inst.installation_id, { user_id: 'b' });
      expect(changed.body.data.user_id).toBe('b');
      expect(changed.body.data.identifier_updated_at > inst.identifier_updated_at).toBe(true);
      expect(changed.body.data.permission_updated_at).toBeNull();

      await tick();
      const detached = await patch(inst.installation_id, { user_id: null });
      expect(detached.body.data.user_id).toBeNull();
      expect(detached.body.data.identifier_updated_at > changed.body.data.identifier_updated_at).toBe(true);
    });

    it('permission_updated_at moves only when permission changes', async () => {
      const inst = await newInstallation(ctx, tenant.token);
      expect(inst.permission_updated_at).toBeNull();
      const granted = await patch(inst.installation_id, { permission: 'granted' });
      expect(granted.body.data.permission).toBe('granted');
      expect(granted.body.data.permission_updated_at).toMatch(ISO_MS);
      await tick();
      const again = await patch(inst.installation_id, { permission: 'granted' });
      expect(again.body.data.permission_updated_at).toBe(granted.body.data.permission_updated_at);
      await tick();
      const denied = await patch(inst.installation_id, { permission: 'denied', user_id: inst.user_id });
      expect(denied.body.data.permission).toBe('denied');
      expect(denied.body.data.permission_updated_at > granted.body.data.permission_updated_at).toBe(true);
      expect(denied.body.data.identifier_updated_at).toBe(inst.identifier_updated_at);
    });

    it('merges device fields and leaves the others alone', async () => {
      const inst = await newInstallation(ctx, tenant.token, { device: { model: 'Pixel', locale: 'fr_FR' } });
      const res = await patch(inst.installation_id, { device: { locale: 'de_DE', app_version: '2.0' } });
      expect(res.body.data.device).toEqual({ app_version: '2.0', os_version: null, model: 'Pixel', locale: 'de_DE', timezone: null });
      const cleared = await patch(inst.installation_id, { device: { model: null } });
      expect(cleared.body.data.device.model).toBeNull();
    });

    it('a changed push token clears invalidated_at and invalid_reason; the same token does not', async () => {
      const token = apnsToken();
      const inst = await newInstallation(ctx, tenant.token, { push_token: token });
      const invalidate = () => ctx.db.query(`UPDATE installations SET invalidated_at = now(), invalid_reason = 'Unregistered' WHERE id = $1`, [inst.id]);
      await invalidate();
      const same = await patch(inst.installation_id, { push_token: token.toUpperCase() });
      expect(same.body.data.invalidated_at).toMatch(ISO_MS);
      expect(same.body.data.invalid_reason).toBe('Unregistered');
      const fresh = apnsToken();
      const revived = await patch(inst.installation_id, { push_token: fresh });
      expect(revived.body.data.invalidated_at).toBeNull();
      expect(revived.body.data.invalid_reason).toBeNull();
      expect((await stored(inst.installation_id)).push_token).toBe(fresh);
      // PUT follows the same rule (docs/api.md#register-installation).
      await invalidate();
      const viaPut = await put(inst.installation_id, { push_token: apnsToken() });
      expect(viaPut.status).toBe(200);
      expect(viaPut.body.data.invalidated_at).toBeNull();
    });

    it('a changed web push subscription clears the invalidation', async () => {
      const inst = await newInstallation(ctx, tenant.token, { platform: 'web', push_token: undefined, web_push_subscription: subscription(1) });
      await ctx.db.query(`UPDATE installations SET invalidated_at = now(), invalid_reason = 'Gone' WHERE id = $1`, [inst.id]);
      const res = await patch(inst.installation_id, { web_push_subscription: subscription(2) });
      expect(res.status).toBe(200);
      expect(res.body.data.invalidated_at).toBeNull();
      expect((await stored(inst.installation_id)).web_push_subscription.endpoint).toBe('https://fcm.googleapis.com/fcm/send/2');
    });

    it.each([
      [
        {},
        'body',
        'The request body must contain at least one of user_id, permission, push_token, web_push_subscription, device, tags, badge, properties, live_activity_start_tokens, widget_push_token.',
      ],
      [{ permission: 'unknown' }, 'permission', 'The selected permission is invalid.'],
      [{ permission: null }, 'permission', 'The selected permission is invalid.'],
      [{ user_id: 42 }, 'user_id', 'The user_id field must be a string.'],
      [{ user_id: '' }, 'user_id', 'The user_id field must not be empty.'],
      [{ user_id: 'x'.repeat(256) }, 'user_id', 'The user_id field must not be greater than 255 characters.'],
      [{ user_id: 'nul\u0000byte' }, 'user_id', 'The user_id field must not contain NUL characters.'],
      [{ device: { model: 'a\u0000b' } }, 'device.model', 'The device.model field must not contain NUL characters.'],
      [{ device: 'phone' }, 'device', 'The device field must be an object.'],
      [{ nickname: 'x' }, 'nickname', 'The nickname field is not allowed.'],
      [{ web_push_subscription: subscription() }, 'web_push_subscription', 'The web_push_subscription field is prohibited when platform is ios.'],
    ])('422 for %j', async (body, field, message) => {
      const inst = await newInstallation(ctx, tenant.token);
      const res = await patch(inst.installation_id, body);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ [field]: [message] });
      expect(res.body.message).toBe(message);
    });

    it('counts further errors in the message', async () => {
      const inst = await newInstallation(ctx, tenant.token);
      const res = await patch(inst.installation_id, { user_id: 1, permission: 'x', bogus: true });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(['bogus', 'permission', 'user_id']);
      expect(res.body.message).toMatch(/ \(and 2 more errors\)$/);
      const two = await patch(inst.installation_id, { user_id: 1, permission: 'x' });
      expect(two.body.message).toMatch(/ \(and 1 more error\)$/);
    });

    it('404 for an unknown installation', async () => {
      const res = await patch(installationId(), { user_id: 'u' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Not Found' });
    });

    it('validation comes before existence: an invalid body for an unknown installation is 422', async () => {
      const res = await patch(installationId(), { permission: 'x' });
      expect(res.status).toBe(422);
    });

    it('422 with errors.installation_id for a path parameter over 255 characters', async () => {
      const res = await patch('i'.repeat(256), { user_id: 'u' });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ installation_id: ['The installation_id field must not be greater than 255 characters.'] });
    });

    it('accepts a 255-character installation id and unicode', async () => {
      for (const id of ['i'.repeat(255), 'inst-ü-✓-😀']) {
        const created = await put(id, { platform: 'android', push_token: 'tok' });
        expect(created.status).toBe(201);
        expect(created.body.data.installation_id).toBe(id);
        expect((await patch(id, { user_id: 'u' })).status).toBe(200);
      }
    });

    it('422 for a NUL in the path parameter', async () => {
      const res = await patch('a\u0000b', { user_id: 'u' });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['installation_id']);
    });
  });

  describe('GET and DELETE', () => {
    it('GET returns the installation, 404 when unknown', async () => {
      const inst = await newInstallation(ctx, tenant.token, { user_id: 'reader' });
      const res = await get(inst.installation_id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: inst });
      expect((await get(installationId())).status).toBe(404);
    });

    it('DELETE answers 204; the installation is then gone and its token and user cleared', async () => {
      const inst = await newInstallation(ctx, tenant.token, { user_id: 'leaver' });
      const res = await ctx.http().delete(path(inst.installation_id)).set(bearer(tenant.token));
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await get(inst.installation_id)).status).toBe(404);
      expect((await patch(inst.installation_id, { user_id: 'x' })).status).toBe(404);
      expect((await ctx.http().delete(path(inst.installation_id)).set(bearer(tenant.token))).status).toBe(404);
      const row = await stored(inst.installation_id);
      expect(row).toMatchObject({ push_token: null, user_id: null, properties: {} });
      expect(row.deleted_at).toBeInstanceOf(Date);
    });

    it('PUT after DELETE registers the installation anew (201)', async () => {
      const inst = await newInstallation(ctx, tenant.token, { user_id: 'again' });
      await ctx.http().delete(path(inst.installation_id)).set(bearer(tenant.token)).expect(204);
      const res = await put(inst.installation_id, { platform: 'android', push_token: 'new' });
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ id: inst.id, platform: 'android', user_id: null, permission: 'unknown' });
    });
  });

  describe('properties (docs/api.md#properties)', () => {
    const create = (properties?: object) => {
      const id = installationId();
      return put(id, { platform: 'android', push_token: `t-${id}`, ...(properties === undefined ? {} : { properties }) }).then((res) => ({ id, res }));
    };

    it('{} when none; typed values are stored and echoed as given', async () => {
      const { res: none } = await create();
      expect(none.status).toBe(201);
      expect(none.body.data.properties).toEqual({});
      const properties = { plan: 'pro', purchases: 3, ratio: 0.5, beta: true, trial: false, empty: '', constructor: 'kept' };
      const { id, res } = await create(properties);
      expect(res.status).toBe(201);
      expect(res.body.data.properties).toEqual(properties);
      expect((await get(id)).body.data.properties).toEqual(properties);
      expect((await stored(id)).properties).toEqual(properties);
    });

    it('PUT replaces the set; PATCH merges, a key set to null is removed', async () => {
      const { id } = await create({ plan: 'free', purchases: 1, beta: true });
      expect((await put(id, { properties: { plan: 'pro', city: 'Lyon' } })).body.data.properties).toEqual({ plan: 'pro', city: 'Lyon' });
      const merged = await patch(id, { properties: { purchases: 2, city: null, gone: null } });
      expect(merged.status).toBe(200);
      expect(merged.body.data.properties).toEqual({ plan: 'pro', purchases: 2 });
      // A PUT or PATCH without properties leaves them alone.
      expect((await put(id, { permission: 'granted' })).body.data.properties).toEqual({ plan: 'pro', purchases: 2 });
      expect((await patch(id, { tags: ['x'] })).body.data.properties).toEqual({ plan: 'pro', purchases: 2 });
      expect((await put(id, { properties: {} })).body.data.properties).toEqual({});
    });

    it('422 at the bad key: names, value types, string length, more than 50 keys', async () => {
      const { id } = await create();
      const res = await patch(id, {
        properties: { Plan: 'x', '1st': 1, ok: 'fine', list: [1], object: { a: 1 }, long: 'x'.repeat(256), max: 'y'.repeat(255), ['k'.repeat(65)]: 1 },
      });
      expect(res.status).toBe(422);
      const keyMessage = (key: string) => [
        `The properties.${key} field name must be a lower-case letter followed by at most 63 lower-case letters, digits and _.`,
      ];
      expect(res.body.errors).toEqual({
        'properties.Plan': keyMessage('Plan'),
        'properties.1st': keyMessage('1st'),
        'properties.list': ['The properties.list field must be a string, a number or a boolean.'],
        'properties.object': ['The properties.object field must be a string, a number or a boolean.'],
        'properties.long': ['The properties.long field must not be greater than 255 characters.'],
        [`properties.${'k'.repeat(65)}`]: keyMessage('k'.repeat(65)),
      });
      const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
      expect((await patch(id, { properties: many })).body.errors).toEqual({ properties: ['The properties field must not have more than 50 keys.'] });
      expect((await patch(id, { properties: [] })).body.errors).toEqual({ properties: ['The properties field must be an object.'] });
      expect((await patch(id, { properties: null })).body.errors).toEqual({ properties: ['The properties field must be an object.'] });
      expect((await stored(id)).properties).toEqual({});
    });

    it('a PATCH that would leave more than 50 keys is refused as a whole; one that removes as many as it adds is not', async () => {
      const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
      const { id } = await create(fifty);
      const refused = await patch(id, { properties: { extra: 1 }, user_id: 'not-applied' });
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual({ properties: ['The properties field must not leave the installation with more than 50 keys.'] });
      expect(await stored(id)).toMatchObject({ properties: fifty, user_id: null });
      const swapped = await patch(id, { properties: { extra: 1, k0: null } });
      expect(swapped.status).toBe(200);
      expect(Object.keys(swapped.body.data.properties)).toHaveLength(50);
      expect((await patch(installationId(), { properties: { a: 1 } })).status).toBe(404);
    });
  });
});
