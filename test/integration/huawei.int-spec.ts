import { randomUUID } from 'node:crypto';
import { ProviderCredentials } from '../../src/credentials/provider-credentials';
import { HmsProvider } from '../../src/delivery/providers/hms.provider';
import { bearer, hmsToken, newApp, newInstallation } from '../support/factories';
import { notificationCompleted, outcomesByInstallation } from '../support/notifications';
import { configureHms } from '../support/providers';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';

/**
 * Huawei Push Kit (docs/api.md#huawei, contract 28) on the sandbox's fake, which refuses what HMS
 * Core refuses: the platform, batched sends with per-token outcomes, result codes, the cached
 * access token, dry runs and credentials:check.
 */
describe('Huawei Push Kit (docs/api.md#huawei)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Huawei');
  let client: Awaited<ReturnType<typeof configureHms>>;
  beforeAll(async () => {
    client = await configureHms(ctx, tenant.appId, stack.fakes);
  });
  beforeEach(() => stack.fakes.hms.reset());

  const huawei = (body: Record<string, unknown> = {}) => newInstallation(ctx, tenant.token, { platform: 'huawei', push_token: hmsToken(), ...body });
  const tokenOf = async (id: string): Promise<string> => (await ctx.db.query(`SELECT push_token FROM installations WHERE id = $1`, [id]))[0].push_token;
  const send = (body: Record<string, unknown>) =>
    ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ notification: { title: 'Hello', body: 'World' }, ...body });
  const trace = (id: string) => outcomesByInstallation(ctx, tenant.token, id);

  it('registers huawei installations with tokens of 1 to 512 characters', async () => {
    const made = await huawei({ push_token: 'x'.repeat(512) });
    expect(made.platform).toBe('huawei');
    const res = await ctx
      .http()
      .put(`/api/v1/installations/inst-${randomUUID()}`)
      .set(bearer(tenant.token))
      .send({ platform: 'huawei', push_token: 'x'.repeat(513) });
    expect([res.status, res.body.errors]).toEqual([422, { push_token: ['The push_token field must be a Huawei Push Kit token (1 to 512 characters).'] }]);
  });

  it('sends the installations of one send in one request, each field where Huawei documents it, and invalidates only the illegal token', async () => {
    const user = `hw-${randomUUID()}`;
    const [a, b, bad] = [await huawei({ user_id: user }), await huawei({ user_id: user }), await huawei({ user_id: user })];
    const badToken = await tokenOf(bad.id);
    stack.fakes.hms.script(badToken, [{ status: 400, code: '80300007' }]);

    const res = await send({
      recipients: { user_ids: [user] },
      notification: { title: 'Shipped', body: 'Tomorrow', image_url: 'https://cdn.example.com/box.png' },
      data: { order: 42 },
      options: { ttl: 600, priority: 'normal', collapse_id: 'order-42', platforms: ['huawei'], android: { channel_id: 'orders', click_action: 'OPEN_ORDER' } },
    });
    expect(res.status).toBe(202);
    const done = await notificationCompleted(ctx, tenant.token, res.body.data.id);
    expect(done.statistics).toMatchObject({ installations: 3, accepted: 2, failed: 1 });

    const requests = stack.fakes.hms.requests;
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ appId: client.app_id, status: 200, code: '80100000', illegal: [badToken], validateOnly: false });
    expect(new Set(requests[0].tokens)).toEqual(new Set([await tokenOf(a.id), await tokenOf(b.id), badToken]));
    const { token: _tokens, ...message } = requests[0].message as Record<string, unknown>;
    expect(message).toEqual({
      data: JSON.stringify({ order: 42, notification_id: done.id }),
      notification: { title: 'Shipped', body: 'Tomorrow', image: 'https://cdn.example.com/box.png' },
      android: { urgency: 'NORMAL', ttl: '600s', notification: { click_action: { type: 1, action: 'OPEN_ORDER' }, tag: 'order-42', channel_id: 'orders' } },
    });

    expect(await trace(done.id)).toEqual({
      [a.installation_id]: ['accepted', null],
      [b.installation_id]: ['accepted', null],
      [bad.installation_id]: ['failed', '80100000'],
    });
    const read = await ctx.http().get(`/api/v1/installations/${bad.installation_id}`).set(bearer(tenant.token)).expect(200);
    expect(read.body.data).toMatchObject({ invalid_reason: '80100000', invalidated_at: expect.any(String) });
  });

  it('keeps one access token across sends, and fetches a new one when Huawei says it expired', async () => {
    const user = `hw-${randomUUID()}`;
    const one = await huawei({ user_id: user });
    stack.fakes.hms.expireAccessTokens();
    const first = await send({ recipients: { user_ids: [user] } });
    await notificationCompleted(ctx, tenant.token, first.body.data.id);
    const second = await send({ recipients: { user_ids: [user] } });
    await notificationCompleted(ctx, tenant.token, second.body.data.id);

    // The token cached from an earlier test was refused once (80200003), then one new token served both sends.
    expect(stack.fakes.hms.requests.map((r) => r.code)).toEqual(['80200003', '80000000', '80000000']);
    expect(stack.fakes.hms.tokenRequests).toHaveLength(1);
    expect(stack.fakes.hms.tokenRequests[0]).toMatchObject({ clientId: client.client_id, grantType: 'client_credentials', status: 200 });
    expect(await trace(second.body.data.id)).toEqual({ [one.installation_id]: ['accepted', null] });
  });

  it('retries a request Huawei answers with 503, after its Retry-After', async () => {
    const user = `hw-${randomUUID()}`;
    const one = await huawei({ user_id: user });
    stack.fakes.hms.script(await tokenOf(one.id), [{ status: 503, code: '81000001', msg: 'Flow control', retryAfter: 0 }]);
    const res = await send({ recipients: { user_ids: [user] } });
    const done = await notificationCompleted(ctx, tenant.token, res.body.data.id);
    expect(stack.fakes.hms.requests.map((r) => r.status)).toEqual([503, 200]);
    expect(done.statistics).toMatchObject({ accepted: 1, failed: 0 });
  });

  it('refuses at send time a message over the 4,096 bytes Huawei takes', async () => {
    const res = await send({ recipients: { all: true }, options: { platforms: ['huawei'] }, data: { blob: 'x'.repeat(4030) } });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.errors)).toContain('too large for Huawei Push Kit');
  });

  it('maps options.android as Huawei documents it: a color, an icon of res/raw, the visibility in upper case', async () => {
    const user = `hw-${randomUUID()}`;
    const one = await huawei({ user_id: user });
    const ok = await send({ recipients: { user_ids: [user] }, options: { android: { color: '#FF0000', icon: 'ic_stat', visibility: 'public' } } });
    const done = await notificationCompleted(ctx, tenant.token, ok.body.data.id);
    expect(await trace(done.id)).toEqual({ [one.installation_id]: ['accepted', null] });
    expect((stack.fakes.hms.requests[0].message as any).android.notification).toMatchObject({ color: '#FF0000', icon: '/raw/ic_stat', visibility: 'PUBLIC' });
  });

  it('the fake refuses what Huawei refuses: bad auth, bad fields, an oversize message, too many tokens', async () => {
    const hms = stack.fakes.hms;
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });
    const granted = await fetch(hms.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    const { access_token: accessToken } = (await granted.json()) as { access_token: string };
    const post = async (body: unknown, authorization = `Bearer ${accessToken}`) => {
      const res = await fetch(`${hms.baseUrl}/v1/${client.app_id}/messages:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify(body),
      });
      return [res.status, ((await res.json()) as { code: string }).code];
    };
    const message = (extra: Record<string, unknown>) => ({ message: { token: [hmsToken()], notification: { title: 'T', body: 'B' }, ...extra } });
    const clicked = { click_action: { type: 3 } };

    expect(await post(message({}), 'Bearer nope')).toEqual([401, '80200001']);
    expect(await post(message({ android: { notification: { ...clicked, colour: '#FFFFFF' } } }))).toEqual([400, '80100003']);
    expect(await post(message({ android: { notification: {} } }))).toEqual([400, '80100003']);
    expect(await post(message({ android: { urgency: 'URGENT' } }))).toEqual([400, '80100003']);
    expect(await post(message({ android: { collapse_key: 'order-42' } }))).toEqual([400, '80100013']);
    expect(await post(message({ android: { ttl: '2000000s' } }))).toEqual([400, '80100003']);
    expect(await post(message({ data: { not: 'a string' } }))).toEqual([400, '80100003']);
    expect(await post(message({ data: 'x'.repeat(4097) }))).toEqual([400, '80300008']);
    expect(await post({ message: { token: Array.from({ length: 1001 }, hmsToken), data: '{}' } })).toEqual([400, '80300010']);
    expect(await post(message({ android: { notification: clicked } }))).toEqual([200, '80000000']);
  });

  it('dry runs with validate_only: a valid token is skipped as DryRun, a made-up one fails without being invalidated', async () => {
    const user = `hw-${randomUUID()}`;
    const good = await huawei({ user_id: user });
    const madeUp = await huawei({ user_id: user, push_token: '0'.repeat(64) });
    const res = await send({ recipients: { user_ids: [user] }, options: { dry_run: true } });
    const done = await notificationCompleted(ctx, tenant.token, res.body.data.id);
    expect(stack.fakes.hms.requests.every((r) => r.validateOnly)).toBe(true);
    expect(await trace(done.id)).toEqual({ [good.installation_id]: ['skipped', 'DryRun'], [madeUp.installation_id]: ['failed', '80100000'] });
    const read = await ctx.http().get(`/api/v1/installations/${madeUp.installation_id}`).set(bearer(tenant.token)).expect(200);
    expect(read.body.data.invalidated_at).toBeNull();
  });

  it('counts huawei installations in audiences/count and filters on platform huawei', async () => {
    const user = `hw-${randomUUID()}`;
    await huawei({ user_id: user });
    const res = await ctx
      .http()
      .post('/api/v1/audiences/count')
      .set(bearer(tenant.token))
      .send({
        recipients: {
          filter: {
            and: [
              { field: 'platform', op: 'eq', value: 'huawei' },
              { field: 'user_id', op: 'eq', value: user },
            ],
          },
        },
      });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ installations: 1, platforms: { ios: 0, android: 0, web: 0, huawei: 1 } });
  });

  it('a bad client secret fails the delivery with the OAuth error, and credentials:check says which part is wrong', async () => {
    const other = await newApp(ctx, 'Huawei bad secret');
    const wrong = stack.fakes.hms.createClient();
    const credentials: ProviderCredentials = {
      appId: other.appId,
      apns: null,
      fcm: null,
      vapid: null,
      hms: { appId: wrong.app_id, clientId: wrong.client_id, clientSecret: 'not-the-secret' },
    };
    const provider = ctx.get(HmsProvider);
    const target = { installationId: 'i', pushToken: hmsToken(), webPushSubscription: null };
    const content = { id: randomUUID(), title: 'T', body: 'B', image_url: null, action_url: null, data: null, options: null };
    expect(await provider.send(credentials, content, target)).toEqual({ kind: 'failed', reason: 'OAuth:20152' });
    expect(await provider.check(credentials)).toMatchObject({ ok: false, detail: expect.stringContaining('the token exchange at') });

    const good = { ...credentials, hms: { appId: wrong.app_id, clientId: wrong.client_id, clientSecret: wrong.client_secret } };
    expect(await provider.check(good)).toEqual({ ok: true, detail: expect.stringContaining('HTTP 400 80300007 for a token no device has') });
    expect(stack.fakes.hms.requests.at(-1)).toMatchObject({ validateOnly: true });
    // A token of one app's client does not send for another app.
    expect(await provider.check({ ...good, hms: { ...good.hms, appId: client.app_id } })).toMatchObject({
      ok: false,
      detail: expect.stringContaining('refused the credentials'),
    });
  });
});
