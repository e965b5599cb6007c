// Self-test of the loopback provider fakes, using real clients over real TLS.
// Run with NODE_EXTRA_CA_CERTS=test/fakes/certs/ca.pem: nothing here disables
// certificate verification.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { connect, constants as h2, type ClientHttp2Session, type OutgoingHttpHeaders } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { SignJWT } from 'jose';
import webpush, { WebPushError, type PushSubscription } from 'web-push';
import { FakeApns, FakeFcm, FakeWebPush, GOOGLE_TOKEN_URL, generateApnsKey, randomApnsToken, type ApnsKey, type ServiceAccount } from './index';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function json(reply: Reply): unknown {
  return JSON.parse(reply.text) as unknown;
}

describe('FakeApns', () => {
  const apns = new FakeApns();
  const topic = 'com.example.app';
  let key: ApnsKey;
  let signingKey: KeyObject;
  let session: ClientHttp2Session;

  function providerToken(options: { kid?: string; iat?: number; key?: KeyObject } = {}): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? key.keyId })
      .setIssuer(key.teamId)
      .setIssuedAt(options.iat)
      .sign(options.key ?? signingKey);
  }

  function post(path: string, headers: OutgoingHttpHeaders, body: string): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const stream = session.request({ [h2.HTTP2_HEADER_METHOD]: 'POST', [h2.HTTP2_HEADER_PATH]: path, ...headers });
      let status = 0;
      let responseHeaders: Reply['headers'] = {};
      let text = '';
      stream.setEncoding('utf8');
      stream.on('response', (h) => {
        status = Number(h[h2.HTTP2_HEADER_STATUS]);
        responseHeaders = h;
      });
      stream.on('data', (chunk: string) => (text += chunk));
      stream.on('end', () => resolve({ status, headers: responseHeaders, text }));
      stream.on('error', reject);
      stream.end(body);
    });
  }

  async function push(token: string, overrides: OutgoingHttpHeaders = {}, body = '{"aps":{"alert":"hi"}}') {
    return post(
      `/3/device/${token}`,
      {
        authorization: `bearer ${await providerToken()}`,
        'apns-topic': topic,
        'apns-push-type': 'alert',
        ...overrides,
      },
      body,
    );
  }

  beforeAll(async () => {
    const url = await apns.start();
    key = generateApnsKey();
    signingKey = createPrivateKey(key.privateKeyPem);
    apns.addKey(key);
    apns.allowTopic(topic);
    // 3000 near-4 KiB pushes queued on one session exceed the client's own
    // 10 MB default and nghttp2 would reset streams with ENHANCE_YOUR_CALM.
    session = connect(url, { maxSessionMemory: 64 });
    // Wait for the server's SETTINGS so the session is counted before reset().
    await once(session, 'remoteSettings');
  });

  afterAll(async () => {
    session.close();
    await apns.stop();
  });

  beforeEach(() => apns.reset());

  it('accepts a valid push over HTTP/2 and records it', async () => {
    const token = randomApnsToken();
    const apnsId = '123e4567-e89b-12d3-a456-426614174000';
    const reply = await push(token, { 'apns-id': apnsId, 'apns-priority': '10' });

    expect(reply).toEqual({ status: 200, headers: expect.objectContaining({ 'apns-id': apnsId }), text: '' });
    expect(apns.requests).toEqual([
      expect.objectContaining({
        token,
        status: 200,
        payload: { aps: { alert: 'hi' } },
        headers: expect.objectContaining({ 'apns-topic': topic, 'apns-push-type': 'alert' }),
      }),
    ]);
    expect(apns.deliveredCount(token)).toBe(1);
  });

  it('answers a made-up token BadDeviceToken, after the provider token and topic checks, as Apple does', async () => {
    const madeUp = '0'.repeat(64);
    const reply = await push(madeUp);
    expect([reply.status, json(reply)]).toEqual([400, { reason: 'BadDeviceToken' }]);
    // Apple judges the credentials first: a wrong topic is reported instead.
    const wrongTopic = await push(madeUp, { 'apns-topic': 'com.example.other' });
    expect([wrongTopic.status, json(wrongTopic)]).toEqual([400, { reason: 'TopicDisallowed' }]);
    expect(apns.deliveredCount()).toBe(0);
  });

  it('plays scripted answers in order, then succeeds', async () => {
    const token = randomApnsToken();
    apns.script(token, [
      { status: 503, reason: 'ServiceUnavailable', retryAfter: 7 },
      { status: 410, reason: 'Unregistered' },
    ]);

    const unavailable = await push(token);
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers['retry-after']).toBe('7');
    expect(json(unavailable)).toEqual({ reason: 'ServiceUnavailable' });

    const gone = await push(token);
    expect(gone.status).toBe(410);
    expect(gone.headers['apns-id']).toEqual(expect.any(String));
    expect(json(gone)).toEqual({ reason: 'Unregistered', timestamp: expect.any(Number) });

    expect((await push(token)).status).toBe(200);
    expect(apns.deliveredCount(token)).toBe(1);
  });

  it('rejects missing, forged and expired provider tokens with 403', async () => {
    const token = randomApnsToken();
    const headers = { 'apns-topic': topic, 'apns-push-type': 'alert' };
    const body = '{"aps":{}}';
    const forged = await providerToken({ key: createPrivateKey(generateApnsKey().privateKeyPem) });
    const expired = await providerToken({ iat: Math.floor(Date.now() / 1000) - 2 * 3600 });
    const unknownKid = await providerToken({ kid: 'NOTAKEY000' });

    const replies = await Promise.all([
      post(`/3/device/${token}`, headers, body),
      post(`/3/device/${token}`, { ...headers, authorization: `bearer ${forged}` }, body),
      post(`/3/device/${token}`, { ...headers, authorization: `bearer ${expired}` }, body),
      post(`/3/device/${token}`, { ...headers, authorization: `bearer ${unknownKid}` }, body),
      post(`/3/device/${token}`, { ...headers, authorization: 'bearer not-a-jwt' }, body),
    ]);

    expect(replies.map((r) => [r.status, json(r)])).toEqual([
      [403, { reason: 'MissingProviderToken' }],
      [403, { reason: 'InvalidProviderToken' }],
      [403, { reason: 'ExpiredProviderToken' }],
      [403, { reason: 'InvalidProviderToken' }],
      [403, { reason: 'InvalidProviderToken' }],
    ]);
  });

  it.each([
    ['a disallowed topic', { 'apns-topic': 'com.other.app' }, undefined, 400, 'TopicDisallowed'],
    ['no topic', { 'apns-topic': undefined }, undefined, 400, 'MissingTopic'],
    ['an unknown push type', { 'apns-push-type': 'loud' }, undefined, 400, 'InvalidPushType'],
    ['a bad priority', { 'apns-priority': '7' }, undefined, 400, 'BadPriority'],
    ['a payload without aps', {}, '{"alert":"hi"}', 400, 'BadPayload'],
    ['a payload over 4 KiB', {}, JSON.stringify({ aps: { alert: 'x'.repeat(4096) } }), 413, 'PayloadTooLarge'],
  ])('rejects %s', async (_case, headers: OutgoingHttpHeaders, body: string | undefined, status, reason) => {
    const reply = await push(randomApnsToken(), headers, body);
    expect([reply.status, json(reply)]).toEqual([status, { reason }]);
  });

  // docs/api.md#silent-sends: what Apple refuses in a background push, and in the platform fields.
  it.each([
    ['priority 10', { 'apns-push-type': 'background', 'apns-priority': '10' }, '{"aps":{"content-available":1}}', 'BadPriority'],
    ['an alert', { 'apns-push-type': 'background', 'apns-priority': '5' }, '{"aps":{"content-available":1,"alert":{"title":"t"}}}', 'BadPayload'],
    ['a badge', { 'apns-push-type': 'background', 'apns-priority': '5' }, '{"aps":{"content-available":1,"badge":1}}', 'BadPayload'],
    ['a sound', { 'apns-push-type': 'background', 'apns-priority': '5' }, '{"aps":{"content-available":1,"sound":"default"}}', 'BadPayload'],
    ['no content-available', { 'apns-push-type': 'background', 'apns-priority': '5' }, '{"aps":{}}', 'BadPayload'],
  ])('refuses a background push with %s', async (_what, headers, body, reason) => {
    const reply = await push(randomApnsToken(), headers, body);
    expect([reply.status, JSON.parse(reply.text)]).toEqual([400, { reason }]);
  });

  it.each([
    ['an unknown interruption-level', '{"aps":{"alert":"hi","interruption-level":"urgent"}}'],
    ['a relevance-score above 1', '{"aps":{"alert":"hi","relevance-score":1.5}}'],
    ['a thread-id that is not a string', '{"aps":{"alert":"hi","thread-id":7}}'],
    ['a subtitle that is not a string', '{"aps":{"alert":{"title":"t","subtitle":1}}}'],
    ['a negative badge', '{"aps":{"alert":"hi","badge":-1}}'],
    ['an alert push without an alert', '{"aps":{"sound":"default"}}'],
  ])('refuses %s', async (_what, body) => {
    const reply = await push(randomApnsToken(), {}, body);
    expect([reply.status, JSON.parse(reply.text)]).toEqual([400, { reason: 'BadPayload' }]);
  });

  it('accepts a background push at priority 5 and every interruption level', async () => {
    expect((await push(randomApnsToken(), { 'apns-push-type': 'background', 'apns-priority': '5' }, '{"aps":{"content-available":1},"k":"v"}')).status).toBe(
      200,
    );
    for (const level of ['passive', 'active', 'time-sensitive', 'critical']) {
      expect((await push(randomApnsToken(), {}, `{"aps":{"alert":"hi","interruption-level":"${level}","relevance-score":0.5}}`)).status).toBe(200);
    }
  });

  it('rejects a device token that is not hex', async () => {
    const reply = await push('not-hex!');
    expect([reply.status, json(reply)]).toEqual([400, { reason: 'BadDeviceToken' }]);
  });

  it('serves thousands of concurrent streams on one session', async () => {
    const jwt = await providerToken();
    const tokens = Array.from({ length: 3000 }, () => randomApnsToken());
    const sessionsBefore = apns.sessions;
    apns.delayMs = 20; // keep streams in flight together
    try {
      const replies = await Promise.all(
        tokens.map((token) =>
          post(
            `/3/device/${token}`,
            {
              authorization: `bearer ${jwt}`,
              'apns-topic': topic,
              'apns-push-type': 'background',
              'apns-priority': '5',
            },
            JSON.stringify({ aps: { 'content-available': 1 }, padding: 'x'.repeat(3900) }),
          ),
        ),
      );
      expect(replies.every((r) => r.status === 200)).toBe(true);
    } finally {
      apns.delayMs = 0;
    }
    expect(apns.deliveredCount()).toBe(tokens.length);
    expect(apns.distinctJwts()).toBe(1);
    expect(apns.sessions).toBe(sessionsBefore); // no reconnects

    expect(session.remoteSettings.maxConcurrentStreams).toBe(1000);
  });

  it('counts HTTP/2 sessions opened since reset()', async () => {
    const previous = session;
    session = connect(apns.baseUrl);
    try {
      expect((await push(randomApnsToken())).status).toBe(200);
      expect((await push(randomApnsToken())).status).toBe(200);
      expect(apns.sessions).toBe(1);
    } finally {
      session.close();
      session = previous;
    }
  });
});

describe('FakeFcm', () => {
  const fcm = new FakeFcm();
  const projectId = 'demo-project';
  const scope = 'https://www.googleapis.com/auth/firebase.messaging';
  let account: ServiceAccount;

  function httpsPost(url: string, headers: Record<string, string>, body: string): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, { method: 'POST', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  function assertion(options: { aud?: string; kid?: boolean } = {}): Promise<string> {
    return new SignJWT({ scope })
      .setProtectedHeader(options.kid === false ? { alg: 'RS256' } : { alg: 'RS256', kid: account.private_key_id })
      .setIssuer(account.client_email)
      .setAudience(options.aud ?? account.token_uri)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(createPrivateKey(account.private_key));
  }

  function fetchToken(jwt: string): Promise<Reply> {
    const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt });
    return httpsPost(account.token_uri, { 'content-type': 'application/x-www-form-urlencoded' }, form.toString());
  }

  async function accessToken(): Promise<string> {
    return (json(await fetchToken(await assertion())) as { access_token: string }).access_token;
  }

  async function send(body: unknown, bearer?: string): Promise<Reply> {
    return httpsPost(
      `${fcm.baseUrl}/v1/projects/${projectId}/messages:send`,
      { authorization: `Bearer ${bearer ?? (await accessToken())}`, 'content-type': 'application/json' },
      JSON.stringify(body),
    );
  }

  beforeAll(async () => {
    await fcm.start();
    account = fcm.createServiceAccount(projectId);
  });

  afterAll(() => fcm.stop());

  beforeEach(() => {
    fcm.reset();
    fcm.accessTokenTtlSeconds = 3599;
  });

  it('creates key files shaped like Google service accounts', () => {
    expect(account).toMatchObject({
      type: 'service_account',
      project_id: projectId,
      private_key_id: expect.stringMatching(/^[0-9a-f]{40}$/),
      private_key: expect.stringContaining('-----BEGIN PRIVATE KEY-----'),
      client_email: expect.stringMatching(new RegExp(`@${projectId}\\.iam\\.gserviceaccount\\.com$`)),
      token_uri: fcm.tokenUrl,
    });
  });

  it('exchanges a signed assertion for an access token', async () => {
    const reply = await fetchToken(await assertion());
    expect(reply.status).toBe(200);
    expect(json(reply)).toEqual({ access_token: expect.any(String), expires_in: 3599, token_type: 'Bearer' });

    // google-auth-library style: no kid, Google's own token URL as audience.
    const gtokenStyle = await fetchToken(await assertion({ aud: GOOGLE_TOKEN_URL, kid: false }));
    expect(gtokenStyle.status).toBe(200);
    expect(fcm.tokenRequests.map((r) => r.aud)).toEqual([fcm.tokenUrl, GOOGLE_TOKEN_URL]);
  });

  it('rejects an assertion for another audience', async () => {
    const reply = await fetchToken(await assertion({ aud: 'https://example.com/token' }));
    expect([reply.status, json(reply)]).toEqual([400, { error: 'invalid_grant', error_description: expect.stringContaining('audience') }]);
  });

  it('sends a message', async () => {
    const message = {
      token: 'device-1',
      notification: { title: 'Hi' },
      data: { orderId: '42' },
      android: { ttl: '60s', priority: 'HIGH' },
    };
    const reply = await send({ message });

    expect(reply.status).toBe(200);
    expect(json(reply)).toEqual({ name: expect.stringMatching(new RegExp(`^projects/${projectId}/messages/.+`)) });
    expect(fcm.requests).toEqual([expect.objectContaining({ token: 'device-1', message, status: 200, validateOnly: false })]);
    expect(fcm.deliveredCount('device-1')).toBe(1);
  });

  it('validates without delivering under validate_only, as FCM does', async () => {
    const message = { token: 'device-1', notification: { title: 'Hi' } };
    const reply = await send({ validate_only: true, message });
    expect([reply.status, json(reply)]).toEqual([200, { name: `projects/${projectId}/messages/fake_message_id` }]);
    expect(fcm.requests).toEqual([expect.objectContaining({ token: 'device-1', status: 200, validateOnly: true })]);
    expect(fcm.deliveredCount('device-1')).toBe(0);

    // The whole message is checked all the same, and the flag must be a boolean.
    expect((await send({ validate_only: true, message: { ...message, data: { n: 1 } } })).status).toBe(400);
    const notBoolean = await send({ validate_only: 'yes', message });
    expect([notBoolean.status, json(notBoolean)]).toEqual([
      400,
      { error: expect.objectContaining({ message: expect.stringContaining("Invalid value at 'validate_only' (TYPE_BOOL)") }) },
    ]);
  });

  it('refuses a made-up registration token in either mode, as FCM does', async () => {
    for (const validateOnly of [true, false]) {
      const reply = await send({ validate_only: validateOnly, message: { token: '0'.repeat(64), notification: { title: 'Hi' } } });
      expect([reply.status, json(reply)]).toEqual([
        400,
        {
          error: {
            code: 400,
            status: 'INVALID_ARGUMENT',
            message: 'The registration token is not a valid FCM registration token',
            details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'INVALID_ARGUMENT' }],
          },
        },
      ]);
    }
  });

  it('rejects non-string data values like FCM', async () => {
    const reply = await send({ message: { token: 'device-1', data: { count: 3 } } });
    expect(reply.status).toBe(400);
    expect(json(reply)).toMatchObject({
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: expect.stringContaining("Invalid value at 'message.data[0].value'"),
      },
    });
  });

  it.each([
    ['a channel_id that is not a string', { channel_id: 7 }, "Invalid value at 'message.android.notification.channel_id'"],
    ['a visibility outside its enum', { visibility: 'private' }, "Invalid value at 'message.android.notification.visibility'"],
    ['a colour not #rrggbb', { color: 'red' }, 'Invalid color format'],
    ['an unknown field', { channel: 'x' }, 'Unknown name "channel"'],
  ])('refuses android.notification with %s', async (_what, notification, message) => {
    const reply = await send({ message: { token: 'device-1', notification: { title: 'Hi' }, android: { notification } } });
    expect(reply.status).toBe(400);
    expect(json(reply)).toMatchObject({ error: { code: 400, message: expect.stringContaining(message) } });
  });

  it.each([
    ['an empty notification', {}],
    ['a null notification', null],
  ])('refuses a data-only message with %s', async (_what, notification) => {
    const reply = await send({ message: { token: 'device-1', data: { a: 'b' }, notification } });
    expect(reply.status).toBe(400);
    expect(json(reply)).toMatchObject({ error: { message: 'A data-only message must not have a notification key.' } });
  });

  it('accepts a data-only message and the android.notification fields with their types', async () => {
    expect((await send({ message: { token: 'device-1', data: { a: 'b' }, android: { priority: 'NORMAL' } } })).status).toBe(200);
    const notification = { channel_id: 'orders', tag: 't', color: '#FF5722', icon: 'ic', click_action: 'OPEN', visibility: 'PRIVATE' };
    expect((await send({ message: { token: 'device-1', notification: { title: 'Hi' }, android: { notification } } })).status).toBe(200);
  });

  it('answers scripted errors with the FCM v1 error body', async () => {
    fcm.script('stale-token', [{ status: 404, errorCode: 'UNREGISTERED' }]);
    const reply = await send({ message: { token: 'stale-token', data: { a: 'b' } } });

    expect(reply.status).toBe(404);
    expect(json(reply)).toEqual({
      error: {
        code: 404,
        message: 'Requested entity was not found.',
        status: 'NOT_FOUND',
        details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }],
      },
    });
    expect((await send({ message: { token: 'stale-token' } })).status).toBe(200);
  });

  it('requires a valid, unexpired access token', async () => {
    const unknown = await send({ message: { token: 'device-1' } }, 'ya29.made-up');
    expect(unknown.status).toBe(401);
    expect(json(unknown)).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });

    fcm.accessTokenTtlSeconds = 0;
    const expired = await send({ message: { token: 'device-1' } });
    expect(expired.status).toBe(401);
  });
});

describe('FakeWebPush', () => {
  const service = new FakeWebPush();
  const vapid = webpush.generateVAPIDKeys();
  const vapidDetails = { subject: 'mailto:ops@example.com', publicKey: vapid.publicKey, privateKey: vapid.privateKey };
  const options = { vapidDetails, TTL: 60, urgency: 'high' as const, topic: 'abc' };

  beforeAll(() => service.start());
  afterAll(() => service.stop());
  beforeEach(() => {
    service.reset();
    service.expectVapidPublicKey(undefined);
  });

  it('authenticates VAPID, decrypts the payload and records it', async () => {
    const subscription: PushSubscription = service.createSubscription();
    const payload = { title: 'Hello', body: 'Wörld ✓', data: { id: 1 } };

    const result = await webpush.sendNotification(subscription, JSON.stringify(payload), options);

    expect(result.statusCode).toBe(201);
    expect(result.headers.location).toMatch(/\/message\//);
    expect(service.requests).toEqual([
      expect.objectContaining({
        endpoint: subscription.endpoint,
        status: 201,
        payload,
        vapidSub: 'mailto:ops@example.com',
        vapidPublicKey: vapid.publicKey,
        headers: expect.objectContaining({ ttl: '60', urgency: 'high', topic: 'abc', 'content-encoding': 'aes128gcm' }),
      }),
    ]);
    expect(service.deliveredCount(subscription.endpoint)).toBe(1);
  });

  it('surfaces a scripted 410 as a WebPushError', async () => {
    const subscription = service.createSubscription();
    service.script(subscription.endpoint, [{ status: 410 }]);

    const error: unknown = await webpush.sendNotification(subscription, '{}', options).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(WebPushError);
    expect((error as WebPushError).statusCode).toBe(410);
    await expect(webpush.sendNotification(subscription, '{}', options)).resolves.toMatchObject({ statusCode: 201 });
  });

  it('rejects VAPID signed with a key other than k', async () => {
    const other = webpush.generateVAPIDKeys();
    const subscription = service.createSubscription();
    const forged = { ...options, vapidDetails: { ...vapidDetails, privateKey: other.privateKey } };

    await expect(webpush.sendNotification(subscription, '{}', forged)).rejects.toMatchObject({ statusCode: 401 });
    expect(service.deliveredCount()).toBe(0);
  });

  it('refuses a VAPID token once it has expired, even one it accepted before', async () => {
    const subscription = service.createSubscription();
    const audience = new URL(subscription.endpoint).origin;
    const exp = Math.floor(Date.now() / 1000) + 2;
    const { Authorization } = webpush.getVapidHeaders(audience, vapidDetails.subject, vapid.publicKey, vapid.privateKey, 'aes128gcm', exp);
    const sendWith = () => webpush.sendNotification(subscription, '{}', { TTL: 60, headers: { Authorization } });

    await expect(sendWith()).resolves.toMatchObject({ statusCode: 201 });
    await expect(sendWith()).resolves.toMatchObject({ statusCode: 201 });
    // A second past exp on the fake's clock.
    service.now = () => (exp + 1) * 1000;
    try {
      await expect(sendWith()).rejects.toMatchObject({ statusCode: 401 });
    } finally {
      service.now = Date.now;
    }
  });

  it('rejects an application server key the subscription is not bound to', async () => {
    service.expectVapidPublicKey(webpush.generateVAPIDKeys().publicKey);
    const subscription = service.createSubscription();
    await expect(webpush.sendNotification(subscription, '{}', options)).rejects.toMatchObject({ statusCode: 403 });
  });

  it('answers 404 for unknown and 410 for unsubscribed endpoints', async () => {
    const subscription = service.createSubscription();
    const unknown = { ...subscription, endpoint: `${service.baseUrl}/push/nope` };
    await expect(webpush.sendNotification(unknown, '{}', options)).rejects.toMatchObject({ statusCode: 404 });

    service.unsubscribe(subscription.endpoint);
    await expect(webpush.sendNotification(subscription, '{}', options)).rejects.toMatchObject({ statusCode: 410 });
  });

  it('rejects encrypted bodies over 4096 bytes with 413', async () => {
    const subscription = service.createSubscription();
    const big = JSON.stringify({ blob: 'x'.repeat(4096) });
    await expect(webpush.sendNotification(subscription, big, options)).rejects.toMatchObject({ statusCode: 413 });
  });

  it('requires aes128gcm content encoding', async () => {
    const subscription = service.createSubscription();
    await expect(webpush.sendNotification(subscription, '{}', { ...options, contentEncoding: 'aesgcm' })).rejects.toMatchObject({ statusCode: 415 });
  });

  it('refuses a body its subscriber could not decrypt', async () => {
    const subscription = service.createSubscription();
    // Encrypted for another subscription's keys.
    const misencrypted = { ...service.createSubscription(), endpoint: subscription.endpoint };
    await expect(webpush.sendNotification(misencrypted, '{}', options)).rejects.toMatchObject({ statusCode: 400 });
  });
});

describe("FakeWebPush with decrypt: 'on-read'", () => {
  const service = new FakeWebPush({ decrypt: 'on-read' });
  const vapid = webpush.generateVAPIDKeys();
  const options = { vapidDetails: { subject: 'mailto:ops@example.com', publicKey: vapid.publicKey, privateKey: vapid.privateKey }, TTL: 60 };

  beforeAll(() => service.start());
  afterAll(() => service.stop());

  it('decrypts a body when it is first read, and accepts one it cannot read, as a push service does', async () => {
    const subscription = service.createSubscription();
    const misencrypted = { ...service.createSubscription(), endpoint: subscription.endpoint };
    const payload = { title: 'Hello', body: 'Wörld ✓' };

    await expect(webpush.sendNotification(subscription, JSON.stringify(payload), options)).resolves.toMatchObject({ statusCode: 201 });
    await expect(webpush.sendNotification(misencrypted, '{}', options)).resolves.toMatchObject({ statusCode: 201 });

    const [readable, unreadable] = service.requests;
    expect(readable).toMatchObject({ status: 201, payload, text: JSON.stringify(payload) });
    expect(unreadable).toMatchObject({ status: 201, payload: undefined, text: undefined });
    expect(service.deliveredCount(subscription.endpoint)).toBe(2);
  });
});
