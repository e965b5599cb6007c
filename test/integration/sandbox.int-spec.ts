import { createPrivateKey, randomBytes } from 'node:crypto';
import { connect, constants as h2 } from 'node:http2';
import { SignJWT } from 'jose';
import { generateApnsKey } from '../../src/sandbox/fake-apns';
import { bearer } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { useAppWithSandbox } from '../support/use-app-with-sandbox';
import { waitFor } from '../support/wait-for';

/**
 * The QA sandbox (docs/testing.md) in front of the real app: the documented supertest example as
 * it is printed there, the inbox's filters, the behaviours, and a sandbox that refuses what the
 * real services refuse. The fakes' own rules are tested in test/fakes/fakes.int-spec.ts.
 */
describe('the sandbox (docs/testing.md)', () => {
  // The sandbox's clock, which ends outages: moved by the test, never waited for.
  let clockOffsetMs = 0;
  const stack = useAppWithSandbox({ now: () => Date.now() + clockOffsetMs });
  const { ctx } = stack;
  const api = () => ctx.http();
  const auth = () => bearer(stack.tenant.token);
  const inbox = async (query: Record<string, string>) => (await stack.sandboxApi().get('/inbox').query(query).expect(200)).body.data as Record<string, any>[];
  const send = async (userId: string, extra: Record<string, unknown> = {}) => {
    const res = await api()
      .post('/api/v1/notifications')
      .set(auth())
      .send({ recipients: { user_ids: [userId] }, notification: { title: 'Hi', body: 'There' }, ...extra })
      .expect(202);
    return res.body.data.id as string;
  };
  const register = async (id: string, body: Record<string, unknown>) => {
    await api().put(`/api/v1/installations/${id}`).set(auth()).send(body).expect(201);
  };
  const installation = async (id: string) => (await api().get(`/api/v1/installations/${id}`).set(auth()).expect(200)).body.data;

  // The example of docs/testing.md, "A test with supertest": `api` is the service, `sandbox` the sandbox.
  describe('the documented example', () => {
    const sandbox = () => stack.sandboxApi();
    const Authorization = () => `Bearer ${stack.tenant.token}`;
    // docs/testing.md example start
    it('delivers the welcome message to a browser and an iPhone', async () => {
      await sandbox().delete('/inbox').expect(204);

      // A browser subscription the sandbox can decrypt for, and an iPhone token.
      const { body: web } = await sandbox().post('/web-push/subscriptions').send({}).expect(201);
      const iphoneToken = randomBytes(32).toString('hex');
      await api()
        .put('/api/v1/installations/qa-browser-1')
        .set('Authorization', Authorization())
        .send({ platform: 'web', web_push_subscription: web.subscription, user_id: 'qa-user-1' })
        .expect(201);
      await api()
        .put('/api/v1/installations/qa-iphone-1')
        .set('Authorization', Authorization())
        .send({ platform: 'ios', push_token: iphoneToken, user_id: 'qa-user-1' })
        .expect(201);

      const { body: sent } = await api()
        .post('/api/v1/notifications')
        .set('Authorization', Authorization())
        .send({ recipients: { user_ids: ['qa-user-1'] }, notification: { title: 'Welcome', body: 'Glad you are here' } })
        .expect(202);

      // Delivery is asynchronous: ask the inbox until both have arrived.
      let received: { platform: string; token: string; payload: any }[] = [];
      for (let attempt = 0; attempt < 100 && received.length < 2; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        received = (await sandbox().get('/inbox').query({ notification_id: sent.data.id }).expect(200)).body.data;
      }
      const browser = received.find((entry) => entry.platform === 'web');
      const iphone = received.find((entry) => entry.platform === 'ios');
      expect(browser).toMatchObject({ token: web.id, payload: { title: 'Welcome', body: 'Glad you are here' } });
      expect(iphone).toMatchObject({ token: iphoneToken, payload: { aps: { alert: { title: 'Welcome', body: 'Glad you are here' } } } });
    });
    // docs/testing.md example end
  });

  it('acts as a UnifiedPush distributor: an Android endpoint it decrypts into the inbox (docs/testing.md#unifiedpush-endpoints)', async () => {
    const { body: endpoint } = await stack.sandboxApi().post('/unifiedpush/subscriptions').send({}).expect(201);
    expect(endpoint.subscription.endpoint).toMatch(/\/up\//);
    await register('up-android', { platform: 'android', push_provider: 'unifiedpush', web_push_subscription: endpoint.subscription, user_id: 'up-user' });
    expect((await installation('up-android')).push_provider).toBe('unifiedpush');
    const id = await send('up-user', { notification: { title: 'Distributed', body: 'Via UnifiedPush', action_url: 'myapp://up' }, data: { n: 1 } });
    await notificationCompleted(ctx, stack.tenant.token, id);
    const [entry] = await inbox({ token: endpoint.id });
    expect(entry).toMatchObject({
      platform: 'android',
      push_provider: 'unifiedpush',
      notification_id: id,
      payload: { notification_id: id, title: 'Distributed', body: 'Via UnifiedPush', action_url: 'myapp://up', data: { n: 1 } },
    });
    expect(entry.headers['content-encoding']).toBe('aes128gcm');

    // Behaviours apply to the endpoint by its id, as to a browser's subscription.
    await stack.sandboxApi().put(`/behaviours/${endpoint.id}`).send({ behaviour: 'unregistered' }).expect(200);
    await notificationCompleted(ctx, stack.tenant.token, await send('up-user'));
    expect(await installation('up-android')).toMatchObject({ invalid_reason: 'Gone', push_provider: 'unifiedpush' });
  });

  it('lists what it accepted, newest first, by platform, token, notification and time; DELETE /inbox clears it', async () => {
    const android = `fcm-${randomBytes(24).toString('base64url')}`;
    await register('inbox-android', { platform: 'android', push_token: android, user_id: 'inbox-user' });
    const first = await send('inbox-user', { notification: { title: 'One', body: 'First' } });
    await notificationCompleted(ctx, stack.tenant.token, first);
    const between = new Date().toISOString();
    const second = await send('inbox-user', { notification: { title: 'Two', body: 'Second' } });
    await notificationCompleted(ctx, stack.tenant.token, second);

    const mine = await inbox({ token: android });
    expect(mine.map((entry) => entry.notification_id)).toEqual([second, first]);
    expect(mine[0]).toMatchObject({ platform: 'android', token: android, payload: { token: android, notification: { title: 'Two', body: 'Second' } } });
    // The credential stays out of the inbox; the request's other headers are there.
    expect(mine[0].headers.authorization).toBeUndefined();
    expect(mine[0].headers['content-type']).toMatch(/application\/json/);
    expect(new Date(mine[0].received_at).getTime()).toBeGreaterThanOrEqual(new Date(mine[1].received_at).getTime());

    expect((await inbox({ token: android, since: between })).map((entry) => entry.notification_id)).toEqual([second]);
    expect(await inbox({ notification_id: first, platform: 'ios' })).toEqual([]);
    expect((await inbox({ notification_id: first, platform: 'android' })).map((entry) => entry.notification_id)).toEqual([first]);
    await stack.sandboxApi().get('/inbox').query({ platform: 'blackberry' }).expect(400);
    await stack.sandboxApi().get('/inbox').query({ since: 'yesterday' }).expect(400);

    await stack.sandboxApi().delete('/inbox').expect(204);
    expect(await inbox({})).toEqual([]);
  });

  it('answers as the behaviours say: unregistered and bad_token end a delivery as the real services would, ok restores', async () => {
    const ios = randomBytes(32).toString('hex');
    const android = `fcm-${randomBytes(24).toString('base64url')}`;
    const { body: web } = await stack.sandboxApi().post('/web-push/subscriptions').send({}).expect(201);
    await register('behaviour-ios', { platform: 'ios', push_token: ios, user_id: 'behaviour-ios' });
    await register('behaviour-android', { platform: 'android', push_token: android, user_id: 'behaviour-android' });
    await register('behaviour-web', { platform: 'web', web_push_subscription: web.subscription, user_id: 'behaviour-web' });
    await stack.sandboxApi().put(`/behaviours/${ios}`).send({ behaviour: 'unregistered' }).expect(200, { token: ios, behaviour: 'unregistered' });
    await stack.sandboxApi().put(`/behaviours/${android}`).send({ behaviour: 'bad_token' }).expect(200);
    await stack.sandboxApi().put(`/behaviours/${web.id}`).send({ behaviour: 'unregistered' }).expect(200);

    for (const user of ['behaviour-ios', 'behaviour-android', 'behaviour-web']) {
      const id = await send(user);
      expect(await notificationCompleted(ctx, stack.tenant.token, id)).toMatchObject({ statistics: { accepted: 0, failed: 1 } });
      expect(await inbox({ notification_id: id })).toEqual([]);
    }
    expect(await installation('behaviour-ios')).toMatchObject({ invalid_reason: 'Unregistered' });
    expect(await installation('behaviour-android')).toMatchObject({ invalid_reason: 'INVALID_ARGUMENT' });
    expect((await installation('behaviour-web')).invalidated_at).not.toBeNull();

    // ok clears a token's behaviour: a new token for the same device is delivered again.
    await stack.sandboxApi().put(`/behaviours/${ios}`).send({ behaviour: 'ok' }).expect(200, { token: ios, behaviour: 'ok' });
    expect((await stack.sandboxApi().get('/behaviours').expect(200)).body.data[ios]).toBeUndefined();
    const fresh = randomBytes(32).toString('hex');
    await api().patch('/api/v1/installations/behaviour-ios').set(auth()).send({ push_token: fresh }).expect(200);
    const again = await send('behaviour-ios');
    expect(await notificationCompleted(ctx, stack.tenant.token, again)).toMatchObject({ statistics: { accepted: 1 } });
    expect(await inbox({ notification_id: again, token: fresh })).toHaveLength(1);
  });

  it('answers 429 with Retry-After and 503 during an outage, which the service retries later; the outage ends on the clock', async () => {
    const slow = randomBytes(32).toString('hex');
    const down = `fcm-${randomBytes(24).toString('base64url')}`;
    await register('retry-ios', { platform: 'ios', push_token: slow, user_id: 'retry-ios' });
    await register('outage-android', { platform: 'android', push_token: down, user_id: 'outage-android' });
    await stack.sandboxApi().put(`/behaviours/${slow}`).send({ behaviour: 'retry_after', seconds: 600 }).expect(200);
    const outage = await stack.sandboxApi().put(`/behaviours/${down}`).send({ behaviour: 'outage', seconds: 600 }).expect(200);
    expect(outage.body).toEqual({ token: down, behaviour: 'outage', seconds: 600, until: expect.any(Number) });

    const trace = async (id: string) => (await api().get(`/api/v1/notifications/${id}/deliveries`).set(auth()).expect(200)).body.data[0];
    const pending = async (id: string, reason: string) =>
      waitFor(async () => {
        const entry = await trace(id);
        return entry?.status === 'pending' && entry.reason === reason ? entry : undefined;
      }, `a pending delivery of ${id} with reason ${reason}`);
    expect(await pending(await send('retry-ios'), 'TooManyRequests')).toMatchObject({ attempts: 1 });
    expect(await pending(await send('outage-android'), 'UNAVAILABLE')).toMatchObject({ attempts: 1 });

    clockOffsetMs += 600_000;
    expect((await stack.sandboxApi().get('/behaviours').expect(200)).body.data[down]).toBeUndefined();
    await stack.sandboxApi().put(`/behaviours/${slow}`).send({ behaviour: 'ok' }).expect(200);
  });

  it('refuses behaviours it does not know, and a retry_after or outage without seconds', async () => {
    const put = (body: unknown) =>
      stack
        .sandboxApi()
        .put('/behaviours/*')
        .send(body as object);
    await put({ behaviour: 'explode' }).expect(400);
    await put({ behaviour: 'retry_after' }).expect(400);
    await put({ behaviour: 'outage', seconds: 0 }).expect(400);
    await put({ behaviour: 'unregistered', seconds: 5 }).expect(400);
    expect((await stack.sandboxApi().get('/behaviours').expect(200)).body.data['*']).toBeUndefined();
  });

  it('refuses a provider token signed by a key it did not issue, as APNs does', async () => {
    const stranger = generateApnsKey();
    const jwt = await new SignJWT({ iss: stack.sandbox.info.apns.team_id, iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: 'ES256', kid: stack.sandbox.info.apns.key_id })
      .sign(createPrivateKey(stranger.privateKeyPem));
    const token = randomBytes(32).toString('hex');
    const session = connect(stack.sandbox.info.env.APNS_URL);
    try {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = session.request({
          [h2.HTTP2_HEADER_METHOD]: 'POST',
          [h2.HTTP2_HEADER_PATH]: `/3/device/${token}`,
          authorization: `bearer ${jwt}`,
          'apns-topic': stack.sandbox.info.apns.topics[0],
          'apns-push-type': 'alert',
        });
        let status = 0;
        let body = '';
        stream.on('response', (headers) => (status = Number(headers[h2.HTTP2_HEADER_STATUS])));
        stream.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        stream.on('end', () => resolve({ status, body }));
        stream.on('error', reject);
        stream.end(JSON.stringify({ aps: { alert: 'Hi' } }));
      });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({ reason: 'InvalidProviderToken' });
    } finally {
      session.close();
    }
    expect(await inbox({ token })).toEqual([]);
  });

  it('holds a subscription to the VAPID key it was made for, as browsers do', async () => {
    const { body: web } = await stack
      .sandboxApi()
      .post('/web-push/subscriptions')
      .send({ application_server_key: 'B'.repeat(87) })
      .expect(201);
    await register('vapid-web', { platform: 'web', web_push_subscription: web.subscription, user_id: 'vapid-web' });
    const id = await send('vapid-web');
    expect(await notificationCompleted(ctx, stack.tenant.token, id)).toMatchObject({ statistics: { accepted: 0, failed: 1 } });
    expect(await inbox({ token: web.id })).toEqual([]);
    await stack.sandboxApi().post('/web-push/subscriptions').send({ application_server_key: 42 }).expect(400);
  });
});
