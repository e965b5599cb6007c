import { CredentialsService } from '../../src/credentials/credentials.service';
import { TRACE_SCAN_ROWS } from '../../src/notifications/trace/delivery-trace.service';
import { generateApnsKey } from '../fakes';
import { apnsToken, bearer, fcmToken, newApp, newInstallation, newToken, TestTenant } from '../support/factories';
import { notificationCompleted, readNotification } from '../support/notifications';
import { APNS_TOPIC, seedInstallations } from '../support/providers';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { waitFor } from '../support/wait-for';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Entry = {
  installation_id: string;
  user_id: string | null;
  platform: string;
  status: string;
  reason: string | null;
  attempts: number;
  provider_message_id: string | null;
  scheduled_for: string | null;
  updated_at: string;
  received_at: string | null;
  displayed_at: string | null;
  opened_at: string | null;
  opened_action: string | null;
};

/**
 * The delivery trace (docs/api.md#delivery-trace), through API, fan-out and delivery in one process with the
 * loopback providers: every field, each status and reason as the worker really writes them, the
 * order and the cursor while deliveries change, the status filter and its bounded scan.
 */
describe('delivery trace: GET /api/v1/notifications/{id}/deliveries (docs/api.md#delivery-trace)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx, 'Trace');
    other = await newApp(ctx, 'Another app');
    // APNs and FCM only: web installations are skipped as NoCredentials.
    const key = generateApnsKey();
    stack.fakes.apns.addKey(key);
    await ctx.get(CredentialsService).update(tenant.appId, {
      apns: { privateKey: key.privateKeyPem, keyId: key.keyId, teamId: key.teamId, topic: APNS_TOPIC, production: false },
      fcm: { serviceAccount: JSON.stringify(stack.fakes.fcm.createServiceAccount(`project-${tenant.appId.slice(0, 8)}`)) },
    });
  });

  const send = async (body: Record<string, unknown>, token = tenant.token): Promise<string> =>
    (
      await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(token))
        .send({ notification: { title: 'Hello', body: 'World' }, ...body })
        .expect(202)
    ).body.data.id;
  const read = (id: string, token = tenant.token) => readNotification(ctx, token, id);
  const completed = (id: string, token = tenant.token) => notificationCompleted(ctx, token, id);
  const trace = (id: string, query: Record<string, string | number> = {}, token = tenant.token) =>
    ctx.http().get(`/api/v1/notifications/${id}/deliveries`).query(query).set(bearer(token));
  /** Every entry, page after page; and the pages' sizes. */
  const walk = async (id: string, query: Record<string, string | number> = {}, token = tenant.token, between?: () => Promise<void>) => {
    const entries: Entry[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await trace(id, { ...query, ...(cursor ? { cursor } : {}) }, token);
      expect(res.status).toBe(200);
      entries.push(...res.body.data);
      sizes.push(res.body.data.length);
      cursor = res.body.meta.next_cursor;
      if (cursor && between) await between();
    } while (cursor);
    return { entries, sizes };
  };
  const byInstallation = (entries: Entry[]) => new Map(entries.map((e) => [e.installation_id, e]));
  /** The trace's order: the deliveries' primary key (the installation's row id), as SQL gives it. */
  const orderInDatabase = async (id: string): Promise<string[]> =>
    (
      await ctx.db.query(
        `SELECT i.installation_id FROM deliveries d JOIN installations i ON i.id = d.installation_id WHERE d.notification_id = $1 ORDER BY d.installation_id`,
        [id],
      )
    ).map((r: { installation_id: string }) => r.installation_id);

  it('shows every field: accepted, failed with the provider reason, skipped (PermissionDenied, NoToken, NoCredentials), a pending retry with its reason', async () => {
    const user = 'mix';
    const accepted = await newInstallation(ctx, tenant.token, { platform: 'ios', user_id: user });
    const refusedToken = apnsToken();
    stack.fakes.apns.script(refusedToken, [{ status: 400, reason: 'BadDeviceToken' }]);
    const refused = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: refusedToken, user_id: user });
    const denied = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user, permission: 'denied' });
    // The API never leaves a live installation without a token; rows of older versions (or
    // written by hand) can be, and the fan-out skips them as NoToken.
    const tokenless = await newInstallation(ctx, tenant.token, { platform: 'ios', user_id: user });
    await ctx.db.query(`UPDATE installations SET push_token = NULL WHERE app_id = $1 AND installation_id = $2`, [tenant.appId, tokenless.installation_id]);
    const web = await newInstallation(ctx, tenant.token, {
      platform: 'web',
      push_token: undefined,
      web_push_subscription: stack.fakes.web.createSubscription(),
      user_id: user,
    });
    // A long Retry-After keeps this one pending, one attempt made, for the rest of the test.
    const retryToken = apnsToken();
    stack.fakes.apns.script(retryToken, [{ status: 503, reason: 'ServiceUnavailable', retryAfter: 600 }]);
    const retrying = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: retryToken, user_id: user });

    const id = await send({ recipients: { user_ids: [user] } });
    const entries = await waitFor(
      async () => {
        const { entries } = await walk(id);
        const map = byInstallation(entries);
        const settled =
          map.get(retrying.installation_id)?.attempts === 1 &&
          map.get(accepted.installation_id)?.status === 'accepted' &&
          map.get(refused.installation_id)?.status === 'failed';
        return settled ? entries : null;
      },
      'every delivery to reach its state',
      20_000,
      200,
    );

    expect(entries).toHaveLength(6);
    for (const e of entries) {
      expect(Object.keys(e).sort()).toEqual(
        [
          'attempts',
          'displayed_at',
          'installation_id',
          'opened_at',
          'opened_action',
          'platform',
          'provider_message_id',
          'reason',
          'received_at',
          'scheduled_for',
          'status',
          'updated_at',
          'user_id',
          'variant',
        ].sort(),
      );
      expect(e.user_id).toBe(user);
      expect(e.updated_at).toMatch(ISO_MS);
      expect(e.scheduled_for).toBeNull();
      expect([e.received_at, e.displayed_at, e.opened_at, e.opened_action]).toEqual([null, null, null, null]);
    }
    const map = byInstallation(entries);
    const pick = (e: Entry | undefined) => e && { platform: e.platform, status: e.status, reason: e.reason, attempts: e.attempts };
    expect(pick(map.get(accepted.installation_id))).toEqual({ platform: 'ios', status: 'accepted', reason: null, attempts: 1 });
    // docs/api.md#provider-message-ids: only the accepted one has an id.
    expect(map.get(accepted.installation_id)?.provider_message_id).toMatch(/^[0-9a-f-]{36} [0-9a-f-]{36}$/);
    expect(entries.filter((e) => e.provider_message_id !== null)).toHaveLength(1);
    expect(pick(map.get(refused.installation_id))).toEqual({ platform: 'ios', status: 'failed', reason: 'BadDeviceToken', attempts: 1 });
    expect(pick(map.get(denied.installation_id))).toEqual({ platform: 'android', status: 'skipped', reason: 'PermissionDenied', attempts: 0 });
    expect(pick(map.get(tokenless.installation_id))).toEqual({ platform: 'ios', status: 'skipped', reason: 'NoToken', attempts: 0 });
    expect(pick(map.get(web.installation_id))).toEqual({ platform: 'web', status: 'skipped', reason: 'NoCredentials', attempts: 0 });
    expect(pick(map.get(retrying.installation_id))).toEqual({ platform: 'ios', status: 'pending', reason: 'ServiceUnavailable', attempts: 1 });
    // In the stable order of the primary key.
    expect(entries.map((e) => e.installation_id)).toEqual(await orderInDatabase(id));
    expect((await read(id)).statistics).toMatchObject({ installations: 6, accepted: 1, failed: 1, skipped: 3 });
  }, 60_000);

  it('an installation deleted while its delivery waits for a retry is skipped as Deleted at the claim, and keeps its entry', async () => {
    const user = 'deleted-meanwhile';
    // Retried after 2 s; deleted in the meantime, so the retry's claim skips it.
    const token = apnsToken();
    stack.fakes.apns.script(token, [{ status: 429, reason: 'TooManyRequests', retryAfter: 2 }]);
    const gone = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: token, user_id: user });
    const id = await send({ recipients: { user_ids: [user] } });
    const waiting = await waitFor(async () => {
      const [entry] = (await walk(id)).entries;
      return entry?.status === 'pending' && entry.attempts === 1 ? entry : null;
    }, 'the delivery to wait for its retry');
    expect(waiting).toMatchObject({ installation_id: gone.installation_id, reason: 'TooManyRequests' });
    await ctx.http().delete(`/api/v1/installations/${gone.installation_id}`).set(bearer(tenant.token)).expect(204);
    await completed(id);
    // The retry's claim found it deleted and asked no provider: one provider attempt. The client's id and user stay.
    expect((await walk(id)).entries).toEqual([
      expect.objectContaining({ installation_id: gone.installation_id, user_id: user, status: 'skipped', reason: 'Deleted', attempts: 1 }),
    ]);
    expect(stack.fakes.apns.requests.filter((r) => r.token === token)).toHaveLength(1);
  });

  it('shows sending while the provider is being asked, filtered too', async () => {
    const user = 'slow-provider';
    const installation = await newInstallation(ctx, tenant.token, { platform: 'ios', user_id: user });
    stack.fakes.apns.delayMs = 2_000;
    try {
      const id = await send({ recipients: { user_ids: [user] } });
      const sending = await waitFor(async () => {
        const res = await trace(id, { status: 'sending' }).expect(200);
        return res.body.data.length === 1 ? res.body.data[0] : null;
      }, 'the delivery to be sending');
      expect(sending).toMatchObject({ installation_id: installation.installation_id, status: 'sending', reason: null, attempts: 1 });
      await completed(id);
      expect((await walk(id)).entries).toEqual([expect.objectContaining({ status: 'accepted', attempts: 1 })]);
    } finally {
      stack.fakes.apns.delayMs = 0;
    }
  });

  it('later sends: Invalidated and PlatformExcluded; an installation deleted after the send keeps its entry, its client id and its user at fan-out', async () => {
    const user = 'later';
    const kept = await newInstallation(ctx, tenant.token, { platform: 'ios', user_id: user });
    const deadToken = apnsToken();
    stack.fakes.apns.script(deadToken, [{ status: 410, reason: 'Unregistered' }]);
    const dead = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: deadToken, user_id: user });
    const android = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user });

    const first = await send({ recipients: { user_ids: [user] } });
    await completed(first);
    // The user changes and the installation is deleted (user_id and token cleared): the trace keeps the fan-out's view.
    await ctx.http().patch(`/api/v1/installations/${kept.installation_id}`).set(bearer(tenant.token)).send({ user_id: 'someone-else' }).expect(200);
    await ctx.http().delete(`/api/v1/installations/${kept.installation_id}`).set(bearer(tenant.token)).expect(204);
    const afterDelete = byInstallation((await walk(first)).entries);
    expect(afterDelete.get(kept.installation_id)).toMatchObject({ installation_id: kept.installation_id, user_id: user, status: 'accepted', reason: null });
    expect(afterDelete.get(dead.installation_id)).toMatchObject({ status: 'failed', reason: 'Unregistered' });

    const second = await send({ recipients: { user_ids: [user] }, options: { platforms: ['ios'] } });
    await completed(second);
    const later = byInstallation((await walk(second)).entries);
    // The deleted installation is no target any more; the invalidated one is skipped; Android is filtered out.
    expect([...later.keys()].sort()).toEqual([dead.installation_id, android.installation_id].sort());
    expect(later.get(dead.installation_id)).toMatchObject({ status: 'skipped', reason: 'Invalidated', attempts: 0, user_id: user });
    expect(later.get(android.installation_id)).toMatchObject({ status: 'skipped', reason: 'PlatformExcluded', attempts: 0, platform: 'android' });
  });

  it('a local-time send is scheduled, with scheduled_for; cancelled, it is skipped as Canceled', async () => {
    const user = 'local';
    const newYork = await newInstallation(ctx, tenant.token, { platform: 'ios', user_id: user, device: { timezone: 'America/New_York' } });
    const utc = await newInstallation(ctx, tenant.token, { platform: 'ios', user_id: user });
    // An hour from now on the UTC clock, hours later in New York: nothing falls due during the test.
    const due = new Date(Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000);
    const localTime = due.toISOString().slice(11, 16);
    const id = await send({ recipients: { user_ids: [user] }, options: { local_time: localTime } });
    await waitFor(async () => (await read(id)).statistics.installations === 2, 'the fan-out');
    const scheduled = byInstallation((await walk(id)).entries);
    expect(scheduled.get(utc.installation_id)).toMatchObject({ status: 'scheduled', reason: null, attempts: 0, scheduled_for: due.toISOString() });
    const newYorkEntry = scheduled.get(newYork.installation_id)!;
    expect(newYorkEntry).toMatchObject({ status: 'scheduled', reason: null, attempts: 0 });
    expect(newYorkEntry.scheduled_for).toMatch(ISO_MS);
    expect(newYorkEntry.scheduled_for).not.toBe(due.toISOString());
    const [{ scheduled_for: stored }] = await ctx.db.query(
      `SELECT d.scheduled_for FROM deliveries d JOIN installations i ON i.id = d.installation_id WHERE d.notification_id = $1 AND i.installation_id = $2`,
      [id, newYork.installation_id],
    );
    expect(newYorkEntry.scheduled_for).toBe(stored.toISOString());

    await ctx.http().post(`/api/v1/notifications/${id}/cancel`).set(bearer(tenant.token)).expect(200);
    const canceled = (await walk(id)).entries;
    expect(canceled.map((e) => [e.status, e.reason])).toEqual([
      ['skipped', 'Canceled'],
      ['skipped', 'Canceled'],
    ]);
    // When it was due stays shown.
    expect(byInstallation(canceled).get(utc.installation_id)!.scheduled_for).toBe(due.toISOString());
  });

  it('a send_at send: empty until its fan-out, then each delivery with scheduled_for = send_at', async () => {
    const user = 'later-on';
    const installation = await newInstallation(ctx, tenant.token, { platform: 'ios', user_id: user });
    const sendAt = new Date(Date.now() + 3_000);
    const id = await send({ recipients: { user_ids: [user] }, send_at: sendAt.toISOString() });
    const before = await trace(id).expect(200);
    expect(before.body).toEqual({ data: [], meta: { next_cursor: null } });
    await completed(id);
    const { entries } = await walk(id);
    expect(entries).toEqual([
      expect.objectContaining({ installation_id: installation.installation_id, status: 'accepted', scheduled_for: sendAt.toISOString() }),
    ]);
  });

  it("shows the client events' times (docs/api.md#reads-and-events)", async () => {
    const user = 'eventful';
    const installation = await newInstallation(ctx, tenant.token, { platform: 'ios', user_id: user });
    const quiet = await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user });
    const id = await send({ recipients: { user_ids: [user] } });
    await completed(id);
    const times = { received: '2026-11-24T01:00:00.250Z', displayed: '2026-11-24T01:00:01.500Z', opened: '2026-11-24T01:02:03.004Z' };
    for (const [type, occurred_at] of Object.entries(times)) {
      await ctx
        .http()
        .post(`/api/v1/notifications/${id}/events`)
        .set(bearer(tenant.token))
        .send({ installation_id: installation.installation_id, type, occurred_at })
        .expect(202);
    }
    // Only displayed for the other one: the rest stay null.
    await ctx
      .http()
      .post(`/api/v1/notifications/${id}/events`)
      .set(bearer(tenant.token))
      .send({ installation_id: quiet.installation_id, type: 'displayed', occurred_at: times.displayed })
      .expect(202);
    const map = byInstallation((await walk(id)).entries);
    expect(map.get(installation.installation_id)).toMatchObject({ received_at: times.received, displayed_at: times.displayed, opened_at: times.opened });
    expect(map.get(quiet.installation_id)).toMatchObject({ received_at: null, displayed_at: times.displayed, opened_at: null });
  });

  describe('pages and the status filter', () => {
    let app: TestTenant;
    let id: string;

    beforeAll(async () => {
      // No credentials: every delivery is skipped at once (NoCredentials), so the worker is done
      // with them and the test alone changes them from then on.
      app = await newApp(ctx, 'Pages');
      await seedInstallations(ctx, app.appId, stack.fakes, 250, 'page', 'ios');
      id = await send({ recipients: { all: true } }, app.token);
      await completed(id, app.token);
    });

    it('walks every delivery once, in a stable order, while deliveries change between pages', async () => {
      const order = await orderInDatabase(id);
      expect(order).toHaveLength(250);
      let round = 0;
      const changed = new Map<string, string>();
      // Between pages, deliveries on both sides of the cursor change status (as outcomes would).
      const change = async () => {
        round++;
        const status = round % 2 ? 'accepted' : 'failed';
        const [rows]: [{ installation_id: string }[]] = await ctx.db.query(
          `UPDATE deliveries d SET status = $2::text, reason = CASE WHEN $2::text = 'failed' THEN 'BadDeviceToken' END, updated_at = now()
           FROM installations i
           WHERE d.notification_id = $1 AND i.id = d.installation_id AND d.installation_id IN (
             SELECT installation_id FROM deliveries WHERE notification_id = $1 ORDER BY md5(installation_id::text || $3) LIMIT 15)
           RETURNING i.installation_id`,
          [id, status, String(round)],
        );
        for (const r of rows) changed.set(r.installation_id, status);
      };
      const { entries, sizes } = await walk(id, { limit: 7 }, app.token, change);
      expect(sizes).toEqual([...Array(35).fill(7), 5]);
      expect(entries.map((e) => e.installation_id)).toEqual(order);
      expect(new Set(entries.map((e) => e.installation_id)).size).toBe(250);
      expect(round).toBe(35);
      // Pages show the rows as they are when read: changes made ahead of the cursor show up.
      const shownChanged = entries.filter((e) => e.status !== 'skipped');
      expect(shownChanged.length).toBeGreaterThan(0);
      for (const e of shownChanged) {
        expect(changed.has(e.installation_id)).toBe(true);
        expect(e.reason).toBe(e.status === 'failed' ? 'BadDeviceToken' : null);
      }
    });

    it.each(['accepted', 'failed', 'skipped'])('status=%s: exactly the deliveries in that status, in the same order, over pages', async (status) => {
      const expected = (
        await ctx.db.query(
          `SELECT i.installation_id FROM deliveries d JOIN installations i ON i.id = d.installation_id
           WHERE d.notification_id = $1 AND d.status = $2 ORDER BY d.installation_id`,
          [id, status],
        )
      ).map((r: { installation_id: string }) => r.installation_id);
      expect(expected.length).toBeGreaterThan(0);
      const { entries, sizes } = await walk(id, { status, limit: 4 }, app.token);
      expect(entries.map((e) => e.installation_id)).toEqual(expected);
      expect(entries.every((e) => e.status === status)).toBe(true);
      expect(sizes.slice(0, -1).every((n) => n === 4)).toBe(true);
    });

    it('a status no delivery has: one empty page, next_cursor null', async () => {
      for (const status of ['sending', 'scheduled', 'pending']) {
        expect((await trace(id, { status }, app.token).expect(200)).body).toEqual({ data: [], meta: { next_cursor: null } });
      }
    });

    it('default limit 100, at most 1,000', async () => {
      const page = await trace(id, {}, app.token).expect(200);
      expect(page.body.data).toHaveLength(100);
      expect(page.body.meta.next_cursor).toEqual(expect.any(String));
      const all = await trace(id, { limit: 1000 }, app.token).expect(200);
      expect(all.body.data).toHaveLength(250);
      expect(all.body.meta.next_cursor).toBeNull();
    });
  });

  it(`a status filter looks at ${TRACE_SCAN_ROWS.toLocaleString('en')} deliveries per page at most, and the walk still finds a rare status`, async () => {
    const app = await newApp(ctx, 'Bounded scan');
    const count = TRACE_SCAN_ROWS + 50;
    await seedInstallations(ctx, app.appId, stack.fakes, count, 'bound', 'ios');
    const id = await send({ recipients: { all: true } }, app.token);
    await completed(id, app.token);
    // The one failed delivery is the last in the trace's order, past the first page's bound.
    const [[last]] = await ctx.db.query(
      `UPDATE deliveries SET status = 'failed', reason = 'BadDeviceToken'
       WHERE notification_id = $1 AND installation_id = (SELECT installation_id FROM deliveries WHERE notification_id = $1 ORDER BY installation_id DESC LIMIT 1)
       RETURNING installation_id`,
      [id],
    );
    const first = await trace(id, { status: 'failed' }, app.token).expect(200);
    expect(first.body.data).toEqual([]);
    expect(first.body.meta.next_cursor).toEqual(expect.any(String));
    const second = await trace(id, { status: 'failed', cursor: first.body.meta.next_cursor }, app.token).expect(200);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0]).toMatchObject({ status: 'failed', reason: 'BadDeviceToken' });
    expect(second.body.meta.next_cursor).toBeNull();
    const [{ installation_id }] = await ctx.db.query(`SELECT installation_id FROM installations WHERE id = $1`, [last.installation_id]);
    expect(second.body.data[0].installation_id).toBe(installation_id);
    // Unfiltered, pages are full: the whole trace in ceil(count / 1000) pages.
    const { entries, sizes } = await walk(id, { limit: 1000 }, app.token);
    expect(new Set(entries.map((e) => e.installation_id)).size).toBe(count);
    expect(sizes).toHaveLength(Math.ceil(count / 1000));
  }, 120_000);

  describe('refusals', () => {
    let id: string;
    let otherId: string;
    beforeAll(async () => {
      await newInstallation(ctx, tenant.token, { platform: 'ios', user_id: 'refusals' });
      await newInstallation(ctx, tenant.token, { platform: 'ios', user_id: 'refusals' });
      id = await send({ recipients: { user_ids: ['refusals'] } });
      otherId = await send({ recipients: { user_ids: ['refusals'] } });
      await completed(id);
      await completed(otherId);
    });

    it("another app's notification, an unknown id or one that is not a UUID: 404", async () => {
      for (const [notification, token] of [
        [id, other.token],
        ['0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10', tenant.token],
        ['not-a-uuid', tenant.token],
      ]) {
        const res = await trace(notification, {}, token);
        expect({ notification, status: res.status, body: res.body }).toEqual({ notification, status: 404, body: { message: 'Not Found' } });
      }
    });

    it('needs notifications:read', async () => {
      const sender = await newToken(ctx, tenant.appId, ['notifications:send', 'events:write']);
      expect((await trace(id, {}, sender)).status).toBe(403);
      const reader = await newToken(ctx, tenant.appId, ['notifications:read']);
      expect((await trace(id, {}, reader)).status).toBe(200);
    });

    it.each([
      [{ limit: 0 }, 'limit', 'The limit field must be at least 1.'],
      [{ limit: 1001 }, 'limit', 'The limit field must not be greater than 1000.'],
      [{ limit: 'ten' }, 'limit', 'The limit field must be an integer.'],
      [{ limit: -5 }, 'limit', 'The limit field must be an integer.'],
      [{ limit: '1.5' }, 'limit', 'The limit field must be an integer.'],
      [{ status: 'delivered' }, 'status', 'The selected status is invalid.'],
      [{ status: 'ACCEPTED' }, 'status', 'The selected status is invalid.'],
      [{ cursor: 'garbage' }, 'cursor', 'The cursor field is invalid.'],
      [{ page: 2 }, 'page', 'The page field is not allowed.'],
    ])('422 for the query %j', async (query, field, message) => {
      const res = await trace(id, query);
      expect({ status: res.status, body: res.body }).toEqual({ status: 422, body: { message, errors: { [field]: [message] } } });
    });

    it("422 on cursor for a forged or altered cursor, another notification's, or a notifications list cursor", async () => {
      const page = await trace(id, { limit: 1 }).expect(200);
      const cursor: string = page.body.meta.next_cursor;
      await trace(id, { limit: 1, cursor }).expect(200);
      const otherCursor: string = (await trace(otherId, { limit: 1 }).expect(200)).body.meta.next_cursor;
      const listCursor: string = (await ctx.http().get('/api/v1/notifications').query({ limit: 1 }).set(bearer(tenant.token)).expect(200)).body.meta
        .next_cursor;
      const [payload, mac] = cursor.split('.');
      const text = Buffer.from(payload, 'base64url').toString();
      const forgedPayload = Buffer.from(`${text.slice(0, -1)}${text.endsWith('0') ? '1' : '0'}`).toString('base64url');
      for (const bad of [
        `${cursor}.x`,
        `${cursor}x`,
        cursor.slice(1),
        `${forgedPayload}.${mac}`,
        Buffer.from(text).toString('base64url'),
        otherCursor,
        listCursor,
      ]) {
        const res = await trace(id, { limit: 1, cursor: bad });
        expect({ bad, status: res.status, body: res.body }).toEqual({
          bad,
          status: 422,
          body: { message: 'The cursor field is invalid.', errors: { cursor: ['The cursor field is invalid.'] } },
        });
      }
    });
  });
});
