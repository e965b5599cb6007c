import { NOTIFICATION_REQUIRED_MESSAGE } from '../../src/notifications/dto/send-notification.dto';
import { apnsToken, bearer, fcmToken, newInstallation } from '../support/factories';
import { notificationCompleted, readNotification } from '../support/notifications';
import { APNS_TOPIC } from '../support/providers';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';

/**
 * Message kinds and platform fields (docs/api.md#message-kinds): validation key by key, what each
 * loopback fake received (byte for byte where the bytes matter), the web skip, badge arithmetic
 * under concurrency, and the `opened` event's action.
 */
describe('message kinds (docs/api.md#message-kinds)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Kinds');

  const post = (body: Record<string, unknown>) => ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).send(body);
  const send = (options: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    post({ recipients: { user_ids: ['someone'] }, notification: { title: 'Hello', body: 'World' }, options, ...extra });
  const completed = (id: string) => notificationCompleted(ctx, tenant.token, id);
  const ios = (body: Record<string, unknown> = {}) => newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), ...body });
  const android = (body: Record<string, unknown> = {}) => newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), ...body });
  const web = (body: Record<string, unknown> = {}) =>
    newInstallation(ctx, tenant.token, { platform: 'web', push_token: undefined, web_push_subscription: stack.fakes.web.createSubscription(), ...body });
  const tokenOf = async (id: string): Promise<string> => (await ctx.db.query(`SELECT push_token FROM installations WHERE id = $1`, [id]))[0].push_token;
  const endpointOf = async (id: string): Promise<string> =>
    (await ctx.db.query(`SELECT web_push_subscription ->> 'endpoint' AS e FROM installations WHERE id = $1`, [id]))[0].e;
  const apnsTo = (token: string) => stack.fakes.apns.requests.filter((r) => r.token === token && r.status === 200);
  const fcmTo = (token: string) => stack.fakes.fcm.requests.filter((r) => r.token === token && r.status === 200);
  const webTo = (endpoint: string) => stack.fakes.web.requests.filter((r) => r.endpoint === endpoint);
  const trace = async (id: string) => (await ctx.http().get(`/api/v1/notifications/${id}/deliveries`).set(bearer(tenant.token)).expect(200)).body.data;

  describe('validation: each key at its own path', () => {
    const s64 = 'x'.repeat(65);
    it.each<[string, Record<string, unknown>, string, string]>([
      [
        'content_available not a boolean',
        { content_available: 'yes' },
        'options.content_available',
        'The options.content_available field must be true or false.',
      ],
      ['apns not an object', { apns: 'x' }, 'options.apns', 'The options.apns field must be an object.'],
      ['an unknown apns key', { apns: { sound: 'x' } }, 'options.apns.sound', 'The options.apns.sound field is not allowed.'],
      [
        'an unknown interruption_level',
        { apns: { interruption_level: 'urgent' } },
        'options.apns.interruption_level',
        'The selected options.apns.interruption_level is invalid.',
      ],
      [
        'relevance_score above 1',
        { apns: { relevance_score: 1.5 } },
        'options.apns.relevance_score',
        'The options.apns.relevance_score field must be between 0 and 1.',
      ],
      [
        'relevance_score not a number',
        { apns: { relevance_score: '1' } },
        'options.apns.relevance_score',
        'The options.apns.relevance_score field must be a number.',
      ],
      ['an empty thread_id', { apns: { thread_id: '' } }, 'options.apns.thread_id', 'The options.apns.thread_id field must not be empty.'],
      [
        'a 65-char thread_id',
        { apns: { thread_id: s64 } },
        'options.apns.thread_id',
        'The options.apns.thread_id field must not be greater than 64 characters.',
      ],
      ['a 65-char category', { apns: { category: s64 } }, 'options.apns.category', 'The options.apns.category field must not be greater than 64 characters.'],
      [
        'a 65-char target_content_id',
        { apns: { target_content_id: s64 } },
        'options.apns.target_content_id',
        'The options.apns.target_content_id field must not be greater than 64 characters.',
      ],
      [
        'a 257-char subtitle',
        { apns: { subtitle: 's'.repeat(257) } },
        'options.apns.subtitle',
        'The options.apns.subtitle field must not be greater than 256 characters.',
      ],
      ['an unknown android key', { android: { sound: 'x' } }, 'options.android.sound', 'The options.android.sound field is not allowed.'],
      [
        'a 65-char channel_id',
        { android: { channel_id: s64 } },
        'options.android.channel_id',
        'The options.android.channel_id field must not be greater than 64 characters.',
      ],
      ['an empty tag', { android: { tag: '' } }, 'options.android.tag', 'The options.android.tag field must not be empty.'],
      ['a colour not #RRGGBB', { android: { color: '#FF572' } }, 'options.android.color', 'The options.android.color field must be at least 7 characters.'],
      [
        'a colour with a non-hex digit',
        { android: { color: '#FF572G' } },
        'options.android.color',
        'The options.android.color field must be a colour in the form #RRGGBB.',
      ],
      ['a 65-char icon', { android: { icon: s64 } }, 'options.android.icon', 'The options.android.icon field must not be greater than 64 characters.'],
      [
        'a 256-char click_action',
        { android: { click_action: 'c'.repeat(256) } },
        'options.android.click_action',
        'The options.android.click_action field must not be greater than 255 characters.',
      ],
      ['an upper-case visibility', { android: { visibility: 'PRIVATE' } }, 'options.android.visibility', 'The selected options.android.visibility is invalid.'],
      ['an unknown web key', { web: { image: 'x' } }, 'options.web.image', 'The options.web.image field is not allowed.'],
      ['an http icon', { web: { icon: 'http://cdn.example.com/i.png' } }, 'options.web.icon', 'The options.web.icon field must be an absolute https:// URL.'],
      [
        'an http badge',
        { web: { badge: 'http://cdn.example.com/b.png' } },
        'options.web.badge',
        'The options.web.badge field must be an absolute https:// URL.',
      ],
      ['a 65-char web tag', { web: { tag: s64 } }, 'options.web.tag', 'The options.web.tag field must not be greater than 64 characters.'],
      [
        'require_interaction not a boolean',
        { web: { require_interaction: 1 } },
        'options.web.require_interaction',
        'The options.web.require_interaction field must be true or false.',
      ],
      ['renotify without tag', { web: { renotify: true } }, 'options.web.renotify', 'The options.web.renotify field requires options.web.tag.'],
      ['silent not a boolean', { web: { silent: 'no' } }, 'options.web.silent', 'The options.web.silent field must be true or false.'],
      ['an unknown urgency', { web: { urgency: 'urgent' } }, 'options.web.urgency', 'The selected options.web.urgency is invalid.'],
      ['no actions', { web: { actions: [] } }, 'options.web.actions', 'The options.web.actions field must have at least 1 item.'],
      [
        'three actions',
        { web: { actions: [1, 2, 3].map((n) => ({ action: `a${n}`, title: `A${n}` })) } },
        'options.web.actions',
        'The options.web.actions field must not have more than 2 items.',
      ],
      ['an action without title', { web: { actions: [{ action: 'a' }] } }, 'options.web.actions.0.title', 'The options.web.actions.0.title field is required.'],
      [
        'a 65-char action',
        {
          web: {
            actions: [
              { action: 'a', title: 'A' },
              { action: s64, title: 'B' },
            ],
          },
        },
        'options.web.actions.1.action',
        'The options.web.actions.1.action field must not be greater than 64 characters.',
      ],
      [
        'a relative action url',
        { web: { actions: [{ action: 'a', title: 'A', url: 'orders/42' }] } },
        'options.web.actions.0.url',
        'The options.web.actions.0.url field must be an absolute URL or an app deep link (scheme://...).',
      ],
      [
        'an unknown action key',
        { web: { actions: [{ action: 'a', title: 'A', icon: 'x' }] } },
        'options.web.actions.0.icon',
        'The options.web.actions.0.icon field is not allowed.',
      ],
      ['badge_increment 0', { badge_increment: 0 }, 'options.badge_increment', 'The options.badge_increment field must not be 0.'],
      ['badge_increment 100', { badge_increment: 100 }, 'options.badge_increment', 'The options.badge_increment field must not be greater than 99.'],
      ['badge_increment -100', { badge_increment: -100 }, 'options.badge_increment', 'The options.badge_increment field must be at least -99.'],
      ['badge_increment 1.5', { badge_increment: 1.5 }, 'options.badge_increment', 'The options.badge_increment field must be an integer.'],
      [
        'badge_increment with badge',
        { badge: 3, badge_increment: 1 },
        'options.badge_increment',
        'The options.badge_increment field must not be given together with options.badge.',
      ],
    ])('422 for %s', async (_what, options, path, message) => {
      const res = await send(options);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ [path]: [message] });
    });

    it('notification stays required unless options.content_available is true', async () => {
      for (const options of [undefined, {}, { content_available: false }]) {
        const res = await post({ recipients: { user_ids: ['someone'] }, ...(options ? { options } : {}) });
        expect([res.status, res.body.errors]).toEqual([422, { notification: [NOTIFICATION_REQUIRED_MESSAGE] }]);
      }
      const silent = await post({ recipients: { user_ids: ['someone'] }, options: { content_available: true } });
      expect(silent.status).toBe(202);
      expect(silent.body.data.notification).toEqual({ title: null, body: null, image_url: null, action_url: null, localizations: null });
    });

    it('accepts every field at its bounds and echoes the options', async () => {
      const options = {
        content_available: true,
        badge_increment: -99,
        apns: {
          interruption_level: 'critical',
          relevance_score: 0,
          thread_id: 't'.repeat(64),
          category: 'C',
          target_content_id: 'x',
          subtitle: 's'.repeat(256),
        },
        android: { channel_id: 'c', tag: 't', color: '#00ff00', icon: 'i', click_action: 'a'.repeat(255), visibility: 'secret' },
        web: {
          icon: 'https://cdn.example.com/i.png',
          badge: 'https://cdn.example.com/b.png',
          tag: 't',
          require_interaction: true,
          renotify: false,
          silent: false,
          urgency: 'very-low',
          actions: [
            { action: 'a'.repeat(64), title: 'T'.repeat(64), url: 'myapp://x' },
            { action: 'b', title: 'B' },
          ],
        },
      };
      const res = await send(options);
      expect(res.status).toBe(202);
      expect(res.body.data.options).toEqual(options);
    });

    it('counts the platform fields in the payload size check (422 at notification)', async () => {
      const body = 'b'.repeat(3700);
      const long = { actions: [{ action: 'a', title: 'A', url: `https://shop.example.com/${'p'.repeat(400)}` }] };
      expect((await send({ platforms: ['web'] }, { notification: { title: 'T', body } })).status).toBe(202);
      const web = await send({ platforms: ['web'], web: long }, { notification: { title: 'T', body } });
      expect([web.status, Object.keys(web.body.errors)]).toEqual([422, ['notification']]);
      expect(web.body.errors.notification[0]).toMatch(/^The notification is too large for Web Push: its payload would be \d+ bytes, the limit is 3993\.$/);
      const fcmBody = 'b'.repeat(3900);
      expect((await send({ platforms: ['android'] }, { notification: { title: 'T', body: fcmBody } })).status).toBe(202);
      const androidFields = { channel_id: 'c'.repeat(64), click_action: 'a'.repeat(255) };
      const fcm = await send({ platforms: ['android'], android: androidFields }, { notification: { title: 'T', body: fcmBody } });
      expect(fcm.body.errors.notification[0]).toMatch(/too large for FCM/);
      const apnsBody = 'b'.repeat(3880);
      expect((await send({ platforms: ['ios'] }, { notification: { title: 'T', body: apnsBody } })).status).toBe(202);
      const apns = await send({ platforms: ['ios'], apns: { subtitle: 's'.repeat(200) } }, { notification: { title: 'T', body: apnsBody } });
      expect(apns.body.errors.notification[0]).toMatch(/too large for APNs/);
    });
  });

  describe('silent sends (docs/api.md#silent-sends)', () => {
    it('APNs background push at priority 5, FCM data-only, web skipped as SilentNotSupported', async () => {
      const [phone, tablet, browser] = [await ios({ user_id: 'silent' }), await android({ user_id: 'silent' }), await web({ user_id: 'silent' })];
      const res = await post({
        recipients: { user_ids: ['silent'] },
        data: { sync: 'inbox' },
        options: { content_available: true, priority: 'high', badge: 4, sound: 'x' },
      });
      expect(res.status).toBe(202);
      const id = res.body.data.id;
      const done = await completed(id);
      expect(done.statistics).toMatchObject({ installations: 3, accepted: 2, skipped: 1, failed: 0 });

      const [apns] = apnsTo(await tokenOf(phone.id));
      expect(apns.text).toBe(`{"aps":{"content-available":1},"notification_id":"${id}","data":{"sync":"inbox"}}`);
      expect(apns.headers).toMatchObject({ 'apns-push-type': 'background', 'apns-priority': '5', 'apns-topic': APNS_TOPIC, 'apns-collapse-id': id });

      const [fcm] = fcmTo(await tokenOf(tablet.id));
      expect(JSON.stringify(fcm.message)).toBe(
        `{"token":"${await tokenOf(tablet.id)}","data":{"sync":"inbox","notification_id":"${id}"},"android":{"priority":"HIGH","collapse_key":"${id}"}}`,
      );
      expect(webTo(await endpointOf(browser.id))).toEqual([]);
      const rows = await trace(id);
      expect(rows.find((r: { installation_id: string }) => r.installation_id === browser.installation_id)).toMatchObject({
        status: 'skipped',
        reason: 'SilentNotSupported',
      });
    });

    it('FCM data-only keeps NORMAL priority; with a notification, content_available adds content-available to an alert push and web is sent', async () => {
      const [phone, tablet, browser] = [await ios({ user_id: 'wake' }), await android({ user_id: 'wake' }), await web({ user_id: 'wake' })];
      const quiet = await post({ recipients: { installation_ids: [tablet.installation_id] }, options: { content_available: true, priority: 'normal' } });
      await completed(quiet.body.data.id);
      expect((fcmTo(await tokenOf(tablet.id))[0].message as { android: unknown }).android).toEqual({ priority: 'NORMAL', collapse_key: quiet.body.data.id });

      const res = await send({ content_available: true }, { recipients: { user_ids: ['wake'] } });
      const id = res.body.data.id;
      expect((await completed(id)).statistics).toMatchObject({ accepted: 3, skipped: 0 });
      const [apns] = apnsTo(await tokenOf(phone.id)).filter((r) => r.text.includes(id));
      expect(apns.text).toBe(`{"aps":{"alert":{"title":"Hello","body":"World"},"content-available":1},"notification_id":"${id}"}`);
      expect(apns.headers).toMatchObject({ 'apns-push-type': 'alert', 'apns-priority': '10' });
      expect(webTo(await endpointOf(browser.id))).toHaveLength(1);
    });
  });

  describe('platform fields (docs/api.md#platform-fields)', () => {
    it('each fake receives its own fields, mapped; the others ignore them', async () => {
      const [phone, tablet, browser] = [await ios({ user_id: 'fields' }), await android({ user_id: 'fields' }), await web({ user_id: 'fields' })];
      const options = {
        priority: 'high',
        apns: {
          interruption_level: 'time-sensitive',
          relevance_score: 0.75,
          thread_id: 'order-42',
          category: 'ORDER',
          target_content_id: 'orders',
          subtitle: 'Order 42',
        },
        android: { channel_id: 'orders', tag: 'order-42', color: '#FF5722', icon: 'ic_order', click_action: 'OPEN_ORDER', visibility: 'private' },
        web: {
          icon: 'https://cdn.example.com/i.png',
          badge: 'https://cdn.example.com/b.png',
          tag: 'order-42',
          require_interaction: true,
          renotify: true,
          silent: false,
          urgency: 'low',
          actions: [
            { action: 'track', title: 'Track', url: 'https://shop.example.com/track/42' },
            { action: 'later', title: 'Later' },
          ],
        },
      };
      const res = await send(options, {
        recipients: { user_ids: ['fields'] },
        notification: { title: 'Shipped', body: 'On its way', action_url: 'https://shop.example.com/42' },
      });
      const id = res.body.data.id;
      expect((await completed(id)).statistics).toMatchObject({ accepted: 3 });

      expect(apnsTo(await tokenOf(phone.id))[0].text).toBe(
        '{"aps":{"alert":{"title":"Shipped","body":"On its way","subtitle":"Order 42"},"interruption-level":"time-sensitive","relevance-score":0.75,' +
          `"thread-id":"order-42","category":"ORDER","target-content-id":"orders"},"notification_id":"${id}","action_url":"https://shop.example.com/42"}`,
      );
      const token = await tokenOf(tablet.id);
      expect(JSON.stringify(fcmTo(token)[0].message)).toBe(
        `{"token":"${token}","notification":{"title":"Shipped","body":"On its way"},"data":{"notification_id":"${id}","action_url":"https://shop.example.com/42"},` +
          `"android":{"priority":"HIGH","collapse_key":"${id}","notification":{"channel_id":"orders","tag":"order-42","color":"#FF5722","icon":"ic_order",` +
          '"click_action":"OPEN_ORDER","visibility":"PRIVATE"}}}',
      );
      const [push] = webTo(await endpointOf(browser.id));
      expect(push.text).toBe(
        `{"notification_id":"${id}","title":"Shipped","body":"On its way","action_url":"https://shop.example.com/42","icon":"https://cdn.example.com/i.png",` +
          '"badge":"https://cdn.example.com/b.png","tag":"order-42","require_interaction":true,"renotify":true,"silent":false,' +
          '"actions":[{"action":"track","title":"Track","url":"https://shop.example.com/track/42"},{"action":"later","title":"Later"}]}',
      );
      // options.web.urgency overrides the `high` that priority implies.
      expect(push.headers.urgency).toBe('low');
    });
  });

  describe('badge arithmetic (docs/api.md#badge-arithmetic)', () => {
    const badgeOf = (token: string) => apnsTo(token).map((r) => (r.payload as { aps: { badge?: number } }).aps.badge);
    const installation = async (id: string) =>
      (
        await ctx
          .http()
          .get(`/api/v1/installations/${encodeURIComponent(id)}`)
          .set(bearer(tenant.token))
          .expect(200)
      ).body.data;

    it('the Installation resource has badge: 0 for iOS on creation, null for the others; PUT and PATCH set it', async () => {
      const phone = await ios();
      expect(phone.badge).toBe(0);
      expect((await android()).badge).toBeNull();
      expect((await web()).badge).toBeNull();
      const path = `/api/v1/installations/${encodeURIComponent(phone.installation_id)}`;
      expect((await ctx.http().patch(path).set(bearer(tenant.token)).send({ badge: 7 }).expect(200)).body.data.badge).toBe(7);
      expect((await ctx.http().put(path).set(bearer(tenant.token)).send({ badge: 0 }).expect(200)).body.data.badge).toBe(0);
      const withBadge = await ios({ badge: 12 });
      expect(withBadge.badge).toBe(12);
      for (const badge of [-1, 100_000, 1.5, null]) {
        const res = await ctx.http().patch(path).set(bearer(tenant.token)).send({ badge });
        expect(res.status).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual(['badge']);
      }
    });

    it('an installation deleted and registered anew starts again from 0', async () => {
      const phone = await ios({ badge: 9 });
      const path = `/api/v1/installations/${encodeURIComponent(phone.installation_id)}`;
      await ctx.http().delete(path).set(bearer(tenant.token)).expect(204);
      const again = await ctx.http().put(path).set(bearer(tenant.token)).send({ platform: 'ios', push_token: apnsToken() }).expect(201);
      expect(again.body.data).toMatchObject({ id: phone.id, badge: 0 });
      expect((await installation(phone.installation_id)).badge).toBe(0);
    });

    // Counted first: no count row yet, both sends insert it (a count row inserted meanwhile and then
    // rolled back stops both; then the second waits for the first's row); counted again: both update
    // the held count row.
    it.each([
      ['no count yet', 'first', `INSERT INTO installation_badges (installation_id, badge) VALUES ($1, 50) RETURNING 1`],
      ['a count row', 'again', `SELECT 1 FROM installation_badges WHERE installation_id = $1 FOR UPDATE`],
    ])('two +1 sends in flight give 2 (%s): each waits for the other and adds to what it wrote', async (_, user, hold) => {
      const phone = await ios({ user_id: `badged-${user}`, ...(user === 'again' ? { badge: 0 } : {}) });
      const token = await tokenOf(phone.id);
      const runner = ctx.db.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        expect(await runner.query(hold, [phone.id])).toHaveLength(1);
        const [a, b] = await Promise.all([
          send({ badge_increment: 1 }, { recipients: { user_ids: [`badged-${user}`] } }),
          send({ badge_increment: 1 }, { recipients: { user_ids: [`badged-${user}`] } }),
        ]);
        expect([a.status, b.status]).toEqual([202, 202]);
        await waitFor(
          async () =>
            Number(
              (
                await ctx.db.query(
                  `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND query LIKE '%WITH claimed AS%'`,
                )
              )[0].n,
            ) === 2,
          'both claims to wait for the row',
        );
        if (user === 'first') await runner.rollbackTransaction();
        else await runner.commitTransaction();
        await Promise.all([completed(a.body.data.id), completed(b.body.data.id)]);
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
      expect(badgeOf(token).sort()).toEqual([1, 2]);
      expect((await installation(phone.installation_id)).badge).toBe(2);
    });

    it('writes a first count without locking the installation (no key check: migration InstallationBadgesWithoutKey)', async () => {
      const phone = await ios({ user_id: 'first-count' });
      await completed((await send({ badge_increment: 4 }, { recipients: { user_ids: ['first-count'] } })).body.data.id);
      expect(await ctx.db.query(`SELECT badge FROM installation_badges WHERE installation_id = $1`, [phone.id])).toEqual([{ badge: 4 }]);
      // A foreign-key check takes FOR KEY SHARE on the installation, which writes the locker into the
      // tuple's xmax (and the page and WAL); a send that only reads it leaves xmax at 0.
      expect(await ctx.db.query(`SELECT xmax::text FROM installations WHERE id = $1`, [phone.id])).toEqual([{ xmax: '0' }]);
    });

    it('badge sets the count, an increment never goes below 0, a retry sends the same number, a silent send leaves it', async () => {
      const phone = await ios({ user_id: 'counted' });
      const token = await tokenOf(phone.id);
      const to = { recipients: { user_ids: ['counted'] } };
      await completed((await send({ badge: 5 }, to)).body.data.id);
      await completed((await send({ badge_increment: 3 }, to)).body.data.id);
      await completed((await send({ badge_increment: -20 }, to)).body.data.id);
      stack.fakes.apns.script(token, [{ status: 503, reason: 'ServiceUnavailable' }]);
      await completed((await send({ badge_increment: 2 }, to)).body.data.id);
      await completed((await post({ ...to, options: { content_available: true, badge_increment: 5 } })).body.data.id);
      // Android and web ignore both options.
      expect(badgeOf(token)).toEqual([5, 8, 0, 2, undefined]);
      expect(
        stack.fakes.apns.requests.filter((r) => r.token === token && r.status === 503).map((r) => (r.payload as { aps: { badge: number } }).aps.badge),
      ).toEqual([2]);
      expect((await installation(phone.installation_id)).badge).toBe(2);
    });
  });

  describe('opened with a web action (docs/api.md#web-action-buttons)', () => {
    it('stores the action with the event and shows it in the trace; only with opened', async () => {
      const browser = await web({ user_id: 'clicker' });
      const res = await send({ web: { actions: [{ action: 'track', title: 'Track' }] } }, { recipients: { user_ids: ['clicker'] } });
      const id = res.body.data.id;
      await completed(id);
      const event = (body: Record<string, unknown>) => ctx.http().post(`/api/v1/notifications/${id}/events`).set(bearer(tenant.token)).send(body);
      const received = await event({ installation_id: browser.installation_id, type: 'received', action: 'track' });
      expect([received.status, received.body.errors]).toEqual([422, { action: ['The action field is allowed only when type is opened.'] }]);
      const long = await event({ installation_id: browser.installation_id, type: 'opened', action: 'a'.repeat(65) });
      expect(long.body.errors).toEqual({ action: ['The action field must not be greater than 64 characters.'] });
      const opened = await event({ installation_id: browser.installation_id, type: 'opened', action: 'track' });
      expect(opened.status).toBe(202);
      expect(opened.body.data).toEqual({
        notification_id: id,
        installation_id: browser.installation_id,
        type: 'opened',
        occurred_at: expect.any(String),
        counted: true,
      });
      expect((await readNotification(ctx, tenant.token, id)).statistics.opened).toBe(1);
      expect((await trace(id))[0]).toMatchObject({ installation_id: browser.installation_id, opened_action: 'track', opened_at: expect.any(String) });
    });
  });
});
