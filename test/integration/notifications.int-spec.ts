import { getQueueToken } from '@nestjs/bullmq';
import { Queue } from 'bullmq';
import { FANOUT_QUEUE } from '../../src/common/queues';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, TestTenant } from '../support/factories';
import { configureCredentials } from '../support/providers';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const valid = () => ({ recipients: { user_ids: ['u1', 'u2'] }, notification: { title: 'Hello', body: 'World' } });

describe('sending notifications (docs/api.md#send, docs/api.md#notification-resource, docs/api.md#reads-and-events)', () => {
  const ctx = useTestApp();
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    // Every provider, so the payload limits of every platform apply (docs/api.md#send).
    await configureCredentials(ctx, tenant.appId);
  });

  const send = (body: unknown) =>
    ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send(body as object);

  it('202 with the notification under data and meta.accepted, every field present', async () => {
    const res = await send({
      recipients: { user_ids: ['u1', 'u2', 'u1', 'u3'] },
      notification: { title: 'Hi', body: 'There', image_url: 'https://cdn.example.com/a.png', action_url: 'myapp://orders/42' },
      data: { order_id: 42, nested: { a: [1, 2] } },
      options: { ttl: 3600, priority: 'normal', collapse_id: 'orders', badge: 3, sound: 'default', platforms: ['ios', 'web'] },
    });
    expect(res.status).toBe(202);
    expect(res.body.meta).toEqual({ accepted: true });
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      notification: { title: 'Hi', body: 'There', image_url: 'https://cdn.example.com/a.png', action_url: 'myapp://orders/42', localizations: null },
      data: { order_id: 42, nested: { a: [1, 2] } },
      options: { ttl: 3600, priority: 'normal', collapse_id: 'orders', badge: 3, sound: 'default', platforms: ['ios', 'web'] },
      dry_run: false,
      target_users: 3,
      template: null,
      variants: null,
      ab_test: null,
      statistics: { users: 0, installations: 0, accepted: 0, received: 0, displayed: 0, opened: 0, failed: 0, skipped: 0, inbox_stored: 0, inbox_read: 0 },
      created_at: expect.stringMatching(ISO_MS),
      // A small send (three users): fanned out by the API before the 202 (docs/api.md#small-sends).
      processing_started_at: expect.stringMatching(ISO_MS),
      completed_at: null,
      send_at: null,
      canceled_at: null,
      failure_reason: null,
    });
  });

  it('stores the notification with the de-duplicated targets before answering', async () => {
    const res = await send({ ...valid(), recipients: { user_ids: ['a', 'b', 'a', 'c', 'b'] } });
    const [row] = await ctx.db.query(`SELECT user_ids, target_users, app_id FROM notifications WHERE id = $1`, [res.body.data.id]);
    expect(row).toEqual({ user_ids: ['a', 'b', 'c'], target_users: 3, app_id: tenant.appId });
  });

  it('unset optional fields are null', async () => {
    const res = await send(valid());
    expect(res.body.data).toMatchObject({ data: null, options: null, notification: { image_url: null, action_url: null } });
  });

  it('queues the fan-out job under a deterministic id', async () => {
    // More recipients than a small send takes (docs/api.md#small-sends): the fan-out job does it all.
    const res = await send({ ...valid(), recipients: { user_ids: ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'] } });
    const queue = ctx.app.get<Queue>(getQueueToken(FANOUT_QUEUE), { strict: false });
    const job = await queue.getJob(`fanout-${res.body.data.id}`);
    expect(job).toBeDefined();
    expect(job!.data).toEqual({ notificationId: res.body.data.id });
    expect(await job!.getState()).toBe('waiting');
    expect(queue.opts.prefix).toBe(ctx.queuePrefix);
  });

  it('422 for no recipients, naming recipients.user_ids too (docs/api.md#send)', async () => {
    const { recipients: _, ...body } = valid();
    const res = await send(body);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      recipients: ['The recipients field is required.'],
      'recipients.user_ids': ['The recipients.user_ids field is required.'],
    });
    expect(res.body.message).toBe('The recipients field is required. (and 1 more error)');
  });

  const tooMany = Array.from({ length: 10_001 }, (_, i) => `u${i}`);
  it.each<[string, (body: any) => void, string, string]>([
    ['recipients not an object', (b) => (b.recipients = ['u1']), 'recipients', 'The recipients field must be an object.'],
    [
      'no recipients key',
      (b) => (b.recipients = {}),
      'recipients',
      'Exactly one of recipients.user_ids, recipients.installation_ids, recipients.tags, recipients.filter, recipients.all or recipients.topic is required.',
    ],
    ['user_ids not an array', (b) => (b.recipients.user_ids = 'u1'), 'recipients.user_ids', 'The recipients.user_ids field must be an array.'],
    ['empty user_ids', (b) => (b.recipients.user_ids = []), 'recipients.user_ids', 'The recipients.user_ids field must have at least 1 item.'],
    ['10,001 user_ids', (b) => (b.recipients.user_ids = tooMany), 'recipients.user_ids', 'The recipients.user_ids field must not have more than 10000 items.'],
    [
      'a non-string user id',
      (b) => (b.recipients.user_ids = ['u1', 'u2', 'u3', 7]),
      'recipients.user_ids.3',
      'The recipients.user_ids.3 field must be a string.',
    ],
    ['an empty user id', (b) => (b.recipients.user_ids = ['']), 'recipients.user_ids.0', 'The recipients.user_ids.0 field must not be empty.'],
    [
      'a 256-char user id',
      (b) => (b.recipients.user_ids = ['x'.repeat(256)]),
      'recipients.user_ids.0',
      'The recipients.user_ids.0 field must not be greater than 255 characters.',
    ],
    ['unknown recipients key', (b) => (b.recipients.segments = ['all']), 'recipients.segments', 'The recipients.segments field is not allowed.'],
    [
      'no notification',
      (b) => delete b.notification,
      'notification',
      'The notification field is required unless options.content_available or options.widgets is true.',
    ],
    ['no title', (b) => delete b.notification.title, 'notification.title', 'The notification.title field is required.'],
    ['empty title', (b) => (b.notification.title = ''), 'notification.title', 'The notification.title field must not be empty.'],
    [
      '257-char title',
      (b) => (b.notification.title = 't'.repeat(257)),
      'notification.title',
      'The notification.title field must not be greater than 256 characters.',
    ],
    ['numeric title', (b) => (b.notification.title = 5), 'notification.title', 'The notification.title field must be a string.'],
    ['no body', (b) => delete b.notification.body, 'notification.body', 'The notification.body field is required.'],
    [
      '4,001-char body',
      (b) => (b.notification.body = 'b'.repeat(4001)),
      'notification.body',
      'The notification.body field must not be greater than 4000 characters.',
    ],
    [
      'http image_url',
      (b) => (b.notification.image_url = 'http://cdn.example.com/a.png'),
      'notification.image_url',
      'The notification.image_url field must be an absolute https:// URL.',
    ],
    [
      'relative image_url',
      (b) => (b.notification.image_url = '/a.png'),
      'notification.image_url',
      'The notification.image_url field must be an absolute https:// URL.',
    ],
    [
      '2,049-char image_url',
      (b) => (b.notification.image_url = `https://e.com/${'a'.repeat(2035)}`),
      'notification.image_url',
      'The notification.image_url field must not be greater than 2048 characters.',
    ],
    [
      'relative action_url',
      (b) => (b.notification.action_url = 'orders/42'),
      'notification.action_url',
      'The notification.action_url field must be an absolute URL or an app deep link (scheme://...).',
    ],
    [
      'action_url javascript:alert(1)',
      (b) => (b.notification.action_url = 'javascript:alert(1)'),
      'notification.action_url',
      'The notification.action_url field must be an absolute URL or an app deep link (scheme://...).',
    ],
    [
      'action_url JavaScript://%0aalert(1)',
      (b) => (b.notification.action_url = 'JavaScript://%0aalert(1)'),
      'notification.action_url',
      'The notification.action_url field must not use the javascript: scheme.',
    ],
    [
      'action_url data:text/html,<script>alert(1)</script>',
      (b) => (b.notification.action_url = 'data:text/html,<script>alert(1)</script>'),
      'notification.action_url',
      'The notification.action_url field must be an absolute URL or an app deep link (scheme://...).',
    ],
    [
      'action_url vbscript://msgbox',
      (b) => (b.notification.action_url = 'vbscript://msgbox'),
      'notification.action_url',
      'The notification.action_url field must not use the vbscript: scheme.',
    ],
    [
      'action_url file:///etc/passwd',
      (b) => (b.notification.action_url = 'file:///etc/passwd'),
      'notification.action_url',
      'The notification.action_url field must not use the file: scheme.',
    ],
    [
      'image_url https://127.0.0.1/a.png',
      (b) => (b.notification.image_url = 'https://127.0.0.1/a.png'),
      'notification.image_url',
      'The notification.image_url field must name a public DNS host, not an IP address or a local name.',
    ],
    [
      'image_url https://0x7f000001/a.png',
      (b) => (b.notification.image_url = 'https://0x7f000001/a.png'),
      'notification.image_url',
      'The notification.image_url field must name a public DNS host, not an IP address or a local name.',
    ],
    [
      'image_url https://[::ffff:7f00:1]/a.png',
      (b) => (b.notification.image_url = 'https://[::ffff:7f00:1]/a.png'),
      'notification.image_url',
      'The notification.image_url field must name a public DNS host, not an IP address or a local name.',
    ],
    [
      'image_url https://localhost/a.png',
      (b) => (b.notification.image_url = 'https://localhost/a.png'),
      'notification.image_url',
      'The notification.image_url field must name a public DNS host, not an IP address or a local name.',
    ],
    [
      'image_url https://cdn.localhost/a.png',
      (b) => (b.notification.image_url = 'https://cdn.localhost/a.png'),
      'notification.image_url',
      'The notification.image_url field must name a public DNS host, not an IP address or a local name.',
    ],
    [
      'image_url https://intranet/a.png',
      (b) => (b.notification.image_url = 'https://intranet/a.png'),
      'notification.image_url',
      'The notification.image_url field must name a public DNS host, not an IP address or a local name.',
    ],
    [
      'image_url https://user:secret@cdn.example.com/a.png',
      (b) => (b.notification.image_url = 'https://user:secret@cdn.example.com/a.png'),
      'notification.image_url',
      'The notification.image_url field must not contain user info.',
    ],
    ['the reserved data key From', (b) => (b.data = { ok: 1, From: 'x' }), 'data', 'The data field must not use the reserved key "From": FCM reserves it.'],
    [
      'the reserved data key GOOGLE.c.a',
      (b) => (b.data = { ok: 1, 'GOOGLE.c.a': 'x' }),
      'data',
      'The data field must not use the reserved key "GOOGLE.c.a": FCM reserves it.',
    ],
    [
      'the reserved data key Gcm.n.e',
      (b) => (b.data = { ok: 1, 'Gcm.n.e': 'x' }),
      'data',
      'The data field must not use the reserved key "Gcm.n.e": FCM reserves it.',
    ],
    [
      'the reserved data key MESSAGE_TYPE',
      (b) => (b.data = { ok: 1, MESSAGE_TYPE: 'x' }),
      'data',
      'The data field must not use the reserved key "MESSAGE_TYPE": FCM reserves it.',
    ],
    [
      'the reserved data key Collapse_Key',
      (b) => (b.data = { ok: 1, Collapse_Key: 'x' }),
      'data',
      'The data field must not use the reserved key "Collapse_Key": FCM reserves it.',
    ],
    [
      'the reserved data key Notification_Id',
      (b) => (b.data = { ok: 1, Notification_Id: 'x' }),
      'data',
      'The data field must not use the reserved key "Notification_Id": the service sets it in every message.',
    ],
    ['unknown notification key', (b) => (b.notification.subtitle = 'x'), 'notification.subtitle', 'The notification.subtitle field is not allowed.'],
    ['data not an object', (b) => (b.data = [1]), 'data', 'The data field must be an object.'],
    ['data over 4 KiB', (b) => (b.data = { blob: 'x'.repeat(4096) }), 'data', 'The data field must not be larger than 4096 bytes when serialized as JSON.'],
    [
      'a reserved data key',
      (b) => (b.data = { notification_id: 'x' }),
      'data',
      'The data field must not use the reserved key "notification_id": the service sets it in every message.',
    ],
    ['options not an object', (b) => (b.options = 'fast'), 'options', 'The options field must be an object.'],
    ['an unknown option', (b) => (b.options = { retries: 3 }), 'options.retries', 'The options.retries field is not allowed.'],
    ['negative ttl', (b) => (b.options = { ttl: -1 }), 'options.ttl', 'The options.ttl field must be at least 0.'],
    ['ttl over 28 days', (b) => (b.options = { ttl: 2_419_201 }), 'options.ttl', 'The options.ttl field must not be greater than 2419200.'],
    ['fractional ttl', (b) => (b.options = { ttl: 1.5 }), 'options.ttl', 'The options.ttl field must be an integer.'],
    ['bad priority', (b) => (b.options = { priority: 'urgent' }), 'options.priority', 'The selected options.priority is invalid.'],
    [
      '65-char collapse_id',
      (b) => (b.options = { collapse_id: 'c'.repeat(65) }),
      'options.collapse_id',
      'The options.collapse_id field must not be greater than 64 characters.',
    ],
    ['negative badge', (b) => (b.options = { badge: -1 }), 'options.badge', 'The options.badge field must be at least 0.'],
    ['256-char sound', (b) => (b.options = { sound: 's'.repeat(256) }), 'options.sound', 'The options.sound field must not be greater than 255 characters.'],
    ['empty platforms', (b) => (b.options = { platforms: [] }), 'options.platforms', 'The options.platforms field must have at least 1 item.'],
    ['unknown platform', (b) => (b.options = { platforms: ['ios', 'windows'] }), 'options.platforms.1', 'The selected options.platforms.1 is invalid.'],
    ['NUL in the title', (b) => (b.notification.title = 'a\u0000'), 'notification.title', 'The notification.title field must not contain NUL characters.'],
    ['NUL in data', (b) => (b.data = { k: ['ok', 'a\u0000'] }), 'data.k.1', 'The data.k.1 field must not contain NUL characters.'],
    ['an unknown top-level key', (b) => (b.schedule_at = 'tomorrow'), 'schedule_at', 'The schedule_at field is not allowed.'],
  ])('422 for %s', async (_name, mutate, field, message) => {
    const body: any = valid();
    mutate(body);
    const res = await send(body);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ [field]: [message] });
    expect(res.body.message).toBe(message);
  });

  it('accepts the bounds: 10,000 recipients, 256-char title, 4,000-char body, ttl 0, a 255-char user id', async () => {
    const res = await send({
      recipients: { user_ids: [...Array.from({ length: 9_999 }, (_, i) => `user-${i}`), 'u'.repeat(255)] },
      notification: { title: 't'.repeat(256), body: 'b'.repeat(1000), action_url: 'https://example.com/x' },
      options: { ttl: 0, platforms: ['android'] },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.target_users).toBe(10_000);
    // A 4,000-character body passes the field rule; whether it fits is then the provider's limit.
    const longest = await send({ ...valid(), notification: { title: 'T', body: 'b'.repeat(4000) }, options: { platforms: ['ios'] } });
    expect(longest.status).toBe(422);
    expect(Object.keys(longest.body.errors)).toEqual(['notification']);
    const long = await send({ ...valid(), notification: { title: 'T', body: 'b'.repeat(3990) }, options: { platforms: ['ios'] } });
    expect(long.status).toBe(202);
  });

  it('422 when the payload cannot fit the provider limit of a targeted platform', async () => {
    const body = { ...valid(), notification: { title: 'T', body: 'b'.repeat(4000) }, data: { extra: 'x'.repeat(3000) } };
    const res = await send(body);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['notification']);
    expect(res.body.errors.notification[0]).toMatch(/^The notification is too large for APNs: its payload would be \d+ bytes, the limit is 4096\.$/);
    const webOnly = await send({ ...valid(), notification: { title: 'T', body: 'b'.repeat(3950) }, options: { platforms: ['web'] } });
    expect(webOnly.status).toBe(422);
    expect(webOnly.body.errors.notification[0]).toMatch(/Web Push.*limit is 3993/);
  });

  describe('payload size: only the platforms the send can reach, counted in bytes (docs/api.md#send)', () => {
    const sendAs = (token: string, body: unknown) =>
      ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(token))
        .send(body as object);
    const withBody = (text: string, options?: object) => ({ ...valid(), notification: { title: 'T', body: text }, ...(options ? { options } : {}) });
    const tenantWith = async (providers: readonly ('apns' | 'fcm' | 'web_push')[]) => {
      const app = await newApp(ctx, `With ${providers.join(', ') || 'nothing'}`);
      if (providers.length > 0) await configureCredentials(ctx, app.appId, providers);
      return app;
    };

    it('a 4,000-character body: accepted for an app without APNs (or any) credentials and for android alone', async () => {
      const body = 'b'.repeat(4000);
      expect((await sendAs((await tenantWith([])).token, withBody(body))).status).toBe(202);
      expect((await sendAs((await tenantWith(['fcm'])).token, withBody(body))).status).toBe(202);
      expect((await send(withBody(body, { platforms: ['android'] }))).status).toBe(202);
      // Reachable by APNs (credentials, and no platforms option excluding it): refused, naming it.
      const all = await send(withBody(body));
      expect(all.status).toBe(422);
      expect(all.body.errors.notification).toEqual(['The notification is too large for APNs: its payload would be 4098 bytes, the limit is 4096.']);
      // Web Push is the tightest, but the app has no VAPID key: only APNs is checked.
      const apnsAndFcm = await sendAs((await tenantWith(['apns', 'fcm'])).token, withBody('b'.repeat(3990)));
      expect(apnsAndFcm.status).toBe(202);
    });

    it('options.platforms and the credentials intersect: a platform named but not configured is not checked', async () => {
      const fcmOnly = await tenantWith(['fcm']);
      expect((await sendAs(fcmOnly.token, withBody('b'.repeat(4000), { platforms: ['ios', 'android'] }))).status).toBe(202);
      const webOnly = await tenantWith(['web_push']);
      const refused = await sendAs(webOnly.token, withBody('b'.repeat(3950), { platforms: ['ios', 'web'] }));
      expect(refused.status).toBe(422);
      expect(refused.body.errors.notification[0]).toMatch(/^The notification is too large for Web Push: its payload would be \d+ bytes, the limit is 3993\.$/);
    });

    it('limits are bytes of UTF-8, not characters', async () => {
      // 1,400 characters of three bytes each: 4,200 bytes, far over every limit in bytes.
      const euros = '€'.repeat(1400);
      const ascii = 'e'.repeat(1400);
      for (const platforms of [['ios'], ['android'], ['web']]) {
        expect((await send(withBody(ascii, { platforms }))).status).toBe(202);
        const res = await send(withBody(euros, { platforms }));
        expect(res.status).toBe(422);
      }
      const android = await send(withBody(euros, { platforms: ['android'] }));
      // FCM counts data keys and values and the notification texts: 4,200 + 1 (title) + notification_id (15 + 36).
      expect(android.body.errors.notification).toEqual(['The notification is too large for FCM: its payload would be 4252 bytes, the limit is 4096.']);
      // Two-byte characters: 2,000 of them (4,000 bytes) pass FCM, not APNs (whose JSON adds its own bytes).
      const accents = 'é'.repeat(2000);
      expect((await send(withBody(accents, { platforms: ['android'] }))).status).toBe(202);
      expect((await send(withBody(accents, { platforms: ['ios'] }))).status).toBe(422);
      const [app] = await ctx.db.query(`SELECT 1 FROM notifications WHERE app_id = $1 AND body = $2`, [tenant.appId, accents]);
      expect(app).toBeDefined();
    });
  });

  describe('reading', () => {
    it('GET /notifications/{id} returns it; unknown and malformed ids are 404', async () => {
      const sent = await send(valid());
      const res = await ctx.http().get(`/api/v1/notifications/${sent.body.data.id}`).set(bearer(tenant.token));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: sent.body.data });
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const missing = await ctx.http().get(`/api/v1/notifications/${id}`).set(bearer(tenant.token));
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual({ message: 'Not Found' });
      }
    });

    it('lists newest first with a cursor until next_cursor is null', async () => {
      const reader = await newApp(ctx, 'Reader');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await ctx.http().post('/api/v1/notifications').set(bearer(reader.token)).send(valid()).expect(202);
        ids.unshift(res.body.data.id);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: Record<string, string | number> = { limit: 2 };
        if (cursor) query.cursor = cursor;
        const page = await ctx.http().get('/api/v1/notifications').query(query).set(bearer(reader.token)).expect(200);
        expect(page.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.data.map((n: { id: string }) => n.id));
        cursor = page.body.meta.next_cursor;
        pages++;
      } while (cursor);
      expect(seen).toEqual(ids);
      expect(pages).toBe(3);
    });

    it.each([
      [{ limit: 0 }, 'limit', 'The limit field must be at least 1.'],
      [{ limit: 101 }, 'limit', 'The limit field must not be greater than 100.'],
      [{ limit: 'ten' }, 'limit', 'The limit field must be an integer.'],
      [{ cursor: 'garbage' }, 'cursor', 'The cursor field is invalid.'],
      [{ page: 2 }, 'page', 'The page field is not allowed.'],
    ])('422 for the query %j', async (query, field, message) => {
      const res = await ctx.http().get('/api/v1/notifications').query(query).set(bearer(tenant.token));
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ [field]: [message] });
    });

    // Forged cursors in the old "<date>|<id>" form: dates JavaScript parses but PostgreSQL does not
    // answered 500, and a trailing segment was ignored. Cursors are signed now; none of these pass.
    const forged = (text: string) => Buffer.from(text).toString('base64url');
    const ID = '0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10';
    it.each([
      ['1', forged(`1|${ID}`)],
      ['2020', forged(`2020|${ID}`)],
      ['+275760-09-13T00:00:00.000Z', forged(`+275760-09-13T00:00:00.000Z|${ID}`)],
      ['a trailing segment', forged(`2026-11-23 10:00:00.123456+00|${ID}|extra`)],
      ['a plain date', forged(`2026-11-23 10:00:00.123456+00|${ID}`)],
      ['the raw text 2020', '2020'],
    ])('422 on cursor, never a 500, for a forged cursor (%s)', async (_name, cursor) => {
      const res = await ctx.http().get('/api/v1/notifications').query({ cursor }).set(bearer(tenant.token));
      expect({ status: res.status, body: res.body }).toEqual({
        status: 422,
        body: { message: 'The cursor field is invalid.', errors: { cursor: ['The cursor field is invalid.'] } },
      });
    });

    it('a real next_cursor with anything appended or changed is refused', async () => {
      const reader = await newApp(ctx, 'Tamper');
      for (let i = 0; i < 2; i++) await ctx.http().post('/api/v1/notifications').set(bearer(reader.token)).send(valid()).expect(202);
      const first = await ctx.http().get('/api/v1/notifications').query({ limit: 1 }).set(bearer(reader.token)).expect(200);
      const cursor: string = first.body.meta.next_cursor;
      await ctx.http().get('/api/v1/notifications').query({ limit: 1, cursor }).set(bearer(reader.token)).expect(200);
      for (const bad of [`${cursor}.x`, `${cursor}x`, cursor.slice(1)]) {
        const res = await ctx.http().get('/api/v1/notifications').query({ limit: 1, cursor: bad }).set(bearer(reader.token));
        expect({ bad, status: res.status }).toEqual({ bad, status: 422 });
      }
    });
  });
});
