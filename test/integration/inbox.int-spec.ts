import { randomUUID } from 'node:crypto';
import { get as httpGet, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apnsToken, bearer, newApp, newInstallation, newToken } from '../support/factories';
import { userIdHash } from '../../src/apps/app-settings';
import { notificationCompleted } from '../support/notifications';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';
import { AppsService } from '../../src/apps/apps.service';
import { RetentionService } from '../../src/delivery/retention/retention.service';
import { FanOutService } from '../../src/delivery/fan-out/fan-out.service';
import { INBOX_UNREAD_CAP, listStatement, unreadStatement, type InboxState } from '../../src/inbox/inbox.repository';
import { valuesOf } from '../../src/common/sql/named';

/** The inbox (docs/api.md#inbox): stored by sends with `options.channels`, listed, marked and streamed per user. */
describe('the inbox (docs/api.md#inbox)', () => {
  const stack = useAppWithFakeProviders({ INBOX_STREAM_HEARTBEAT_MS: '200' });
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Inbox');

  const user = () => `user-${randomUUID()}`;
  const send = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set({ ...bearer(tenant.token), ...headers })
      .send({ notification: { title: 'Shipped', body: 'Your order is on its way' }, ...body });
    expect(res.status).toBe(202);
    return res.body.data.id as string;
  };
  const inbox = async (userId: string, query = '', token = tenant.token) => {
    const res = await ctx
      .http()
      .get(`/api/v1/users/${encodeURIComponent(userId)}/inbox${query}`)
      .set(bearer(token));
    expect(res.status).toBe(200);
    return res.body as { data: Record<string, any>[]; meta: { next_cursor: string | null; unread: number } };
  };
  const stored = async (notificationId: string) =>
    ctx.db.query<{ user_id: string; title: string; body: string }[]>(
      `SELECT user_id, title, body FROM inbox_messages WHERE notification_id = $1 ORDER BY user_id`,
      [notificationId],
    );
  const apnsFor = (token: string) => stack.fakes.apns.requests.filter((r) => r.token === token);

  it('stores one message per listed user, one without installations too, beside the push; statistics count them', async () => {
    const [a, b] = [user(), user()];
    const pushToken = apnsToken();
    await newInstallation(ctx, tenant.token, { user_id: a, push_token: pushToken });
    const id = await send({ recipients: { user_ids: [a, b, a] }, options: { channels: ['push', 'inbox'] } });
    const done = await notificationCompleted(ctx, tenant.token, id);
    expect(done.statistics).toMatchObject({ users: 1, installations: 1, accepted: 1, inbox_stored: 2, inbox_read: 0 });
    expect((await stored(id)).map((m) => m.user_id)).toEqual([a, b].sort());
    expect(apnsFor(pushToken)).toHaveLength(1);

    const page = await inbox(b);
    expect(page.meta).toEqual({ next_cursor: null, unread: 1 });
    expect(page.data[0]).toEqual({
      id: expect.any(String),
      notification_id: id,
      user_id: b,
      title: 'Shipped',
      body: 'Your order is on its way',
      image_url: null,
      action_url: null,
      data: null,
      topic: null,
      created_at: expect.any(String),
      read_at: null,
      archived_at: null,
      expires_at: new Date(Date.parse(page.data[0].created_at) + 90 * 86_400_000).toISOString(),
    });
  });

  it('pushes nothing with ["inbox"] alone, and stores nothing without "inbox"', async () => {
    const a = user();
    const pushToken = apnsToken();
    await newInstallation(ctx, tenant.token, { user_id: a, push_token: pushToken });
    const only = await send({ recipients: { user_ids: [a] }, options: { channels: ['inbox'] } });
    const done = await notificationCompleted(ctx, tenant.token, only);
    expect(done.statistics).toMatchObject({ installations: 0, accepted: 0, inbox_stored: 1 });
    expect(apnsFor(pushToken)).toHaveLength(0);
    const push = await send({ recipients: { user_ids: [a] } });
    expect((await notificationCompleted(ctx, tenant.token, push)).statistics).toMatchObject({ accepted: 1, inbox_stored: 0 });
    expect(apnsFor(pushToken)).toHaveLength(1);
    expect(await stored(push)).toEqual([]);
  });

  it('stores each distinct user of the matched installations once, none for installations without a user (a fanned-out send)', async () => {
    const tag = `t${randomUUID().slice(0, 8)}`;
    const [a, b] = [user(), user()];
    await newInstallation(ctx, tenant.token, { user_id: a, tags: [tag] });
    await newInstallation(ctx, tenant.token, { user_id: a, tags: [tag] });
    await newInstallation(ctx, tenant.token, { user_id: b, tags: [tag] });
    await newInstallation(ctx, tenant.token, { tags: [tag] });
    const id = await send({ recipients: { tags: [tag] }, options: { channels: ['push', 'inbox'] } });
    expect((await notificationCompleted(ctx, tenant.token, id)).statistics).toMatchObject({ installations: 4, inbox_stored: 2 });
    expect((await stored(id)).map((m) => m.user_id)).toEqual([a, b].sort());
  });

  it("honours the user's choices: none for a user unsubscribed from the send's topic; none on a marketing send with the inbox turned off", async () => {
    const [subscribed, unsubscribed, noInbox] = [user(), user(), user()];
    const topic = `t-${randomUUID().slice(0, 8)}`;
    await ctx.http().put(`/api/v1/topics/${topic}`).set(bearer(tenant.token)).send({ name: 'Promotions', default: 'subscribed' }).expect(201);
    const prefer = (userId: string, body: Record<string, unknown>) =>
      ctx.http().patch(`/api/v1/users/${userId}/preferences`).set(bearer(tenant.token)).send(body).expect(200);
    await prefer(unsubscribed, { topics: { [topic]: false } });
    await prefer(noInbox, { channels: { inbox: false } });
    const all = [subscribed, unsubscribed, noInbox];
    const topical = await send({ recipients: { user_ids: all }, options: { channels: ['inbox'], topic } });
    await notificationCompleted(ctx, tenant.token, topical);
    expect((await stored(topical)).map((m) => m.user_id)).toEqual([subscribed, noInbox].sort());
    const marketing = await send({ recipients: { user_ids: all }, options: { channels: ['inbox'], category: 'marketing' } });
    await notificationCompleted(ctx, tenant.token, marketing);
    expect((await stored(marketing)).map((m) => m.user_id)).toEqual([subscribed, unsubscribed].sort());
    const transactional = await send({ recipients: { user_ids: all }, options: { channels: ['inbox'] } });
    await notificationCompleted(ctx, tenant.token, transactional);
    expect(await stored(transactional)).toHaveLength(3);
  });

  it('stores once whatever the retries: the fan-out run again once done, and its chunks run again from the start', async () => {
    const tag = `t${randomUUID().slice(0, 8)}`;
    const [a, b] = [user(), user()];
    await newInstallation(ctx, tenant.token, { user_id: a, tags: [tag] });
    await newInstallation(ctx, tenant.token, { user_id: a, tags: [tag] });
    await newInstallation(ctx, tenant.token, { user_id: b, tags: [tag] });
    const id = await send({ recipients: { tags: [tag] }, options: { channels: ['push', 'inbox'] } });
    expect((await notificationCompleted(ctx, tenant.token, id)).statistics).toMatchObject({ installations: 3, accepted: 3, inbox_stored: 2 });
    const fanOuts = ctx.get(FanOutService);
    // A stalled job's second run, and the sweeper's: the fan-out is done, nothing is stored.
    await fanOuts.fanOut(id, true);
    await fanOuts.fanOut(id, false);
    // A chunk run again from the first position (as if its work were lost): the rows it meets are kept, none added.
    await ctx.db.query(`UPDATE notifications SET fanned_out_at = NULL, completed_at = NULL, fanout_position = 0, fanout_cursor = NULL WHERE id = $1`, [id]);
    await fanOuts.fanOut(id, true);
    const [row] = await ctx.db.query(`SELECT stat_inbox_stored, stat_installations, fanned_out_at FROM notifications WHERE id = $1`, [id]);
    expect(row).toEqual({ stat_inbox_stored: 2, stat_installations: 3, fanned_out_at: expect.any(Date) });
    expect((await stored(id)).map((m) => m.user_id)).toEqual([a, b].sort());
    expect((await inbox(a)).data.filter((m) => m.notification_id === id)).toHaveLength(1);
  });

  it('stores nothing new for an Idempotency-Key replay', async () => {
    const a = user();
    const headers = { 'Idempotency-Key': `inbox-${randomUUID()}` };
    const body = { recipients: { user_ids: [a] }, options: { channels: ['inbox'] } };
    const id = await send(body, headers);
    expect(await send(body, headers)).toBe(id);
    await notificationCompleted(ctx, tenant.token, id);
    expect(await stored(id)).toHaveLength(1);
    expect((await inbox(a)).data).toHaveLength(1);
  });

  it("localizes each message to the language of the user's most recently seen installation", async () => {
    const [fr, ptPt, other, none] = [user(), user(), user(), user()];
    await newInstallation(ctx, tenant.token, { user_id: fr, device: { locale: 'de_DE' } });
    await newInstallation(ctx, tenant.token, { user_id: fr, device: { locale: 'fr_CA' } });
    await newInstallation(ctx, tenant.token, { user_id: ptPt, device: { locale: 'pt-PT' } });
    await newInstallation(ctx, tenant.token, { user_id: other, device: { locale: 'ja' } });
    const localizations = { 'pt-BR': { title: 'Olá' }, de: { title: 'Hallo' }, 'fr-CA': { title: 'Bonjour', body: 'Le monde' } };
    const id = await send({
      recipients: { user_ids: [fr, ptPt, other, none] },
      notification: { title: 'Hello', body: 'World', localizations },
      options: { channels: ['inbox'] },
    });
    await notificationCompleted(ctx, tenant.token, id);
    const byUser = Object.fromEntries((await stored(id)).map((m) => [m.user_id, [m.title, m.body]]));
    expect(byUser).toEqual({ [fr]: ['Bonjour', 'Le monde'], [ptPt]: ['Olá', 'World'], [other]: ['Hello', 'World'], [none]: ['Hello', 'World'] });
  });

  describe('reading and marking', () => {
    /** A user with `n` messages, one send each, oldest first; their ids newest first. */
    const withMessages = async (n: number, userId = user()) => {
      for (let i = 0; i < n; i++) {
        const id = await send({ recipients: { user_ids: [userId] }, notification: { title: `m${i}`, body: 'b' }, options: { channels: ['inbox'] } });
        await notificationCompleted(ctx, tenant.token, id);
      }
      return { userId, ids: (await inbox(userId, '?limit=100')).data.map((m) => m.id as string) };
    };
    const mark = (userId: string, id: string, body: Record<string, unknown>, token = tenant.token) =>
      ctx
        .http()
        .patch(`/api/v1/users/${encodeURIComponent(userId)}/inbox/${id}`)
        .set(bearer(token))
        .send(body);

    it('lists newest first, a page at a time, with the unread count whatever the page', async () => {
      const { userId, ids } = await withMessages(5);
      expect(ids).toHaveLength(5);
      const first = await inbox(userId, '?limit=2');
      expect(first.data.map((m) => m.title)).toEqual(['m4', 'm3']);
      expect(first.meta.unread).toBe(5);
      const second = await inbox(userId, `?limit=2&cursor=${encodeURIComponent(first.meta.next_cursor!)}`);
      expect(second.data.map((m) => m.title)).toEqual(['m2', 'm1']);
      const third = await inbox(userId, `?limit=2&cursor=${encodeURIComponent(second.meta.next_cursor!)}`);
      expect(third.data.map((m) => m.title)).toEqual(['m0']);
      expect(third.meta.next_cursor).toBeNull();
      const bad = await ctx.http().get(`/api/v1/users/${userId}/inbox?cursor=nope`).set(bearer(tenant.token));
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toHaveProperty('cursor');
      const badState = await ctx.http().get(`/api/v1/users/${userId}/inbox?state=new`).set(bearer(tenant.token));
      expect(badState.status).toBe(422);
      // limit 1..100 (default 20).
      for (const limit of ['0', '101', 'x']) {
        const bad = await ctx.http().get(`/api/v1/users/${userId}/inbox?limit=${limit}`).set(bearer(tenant.token));
        expect({ limit, status: bad.status, fields: Object.keys(bad.body.errors ?? {}) }).toEqual({ limit, status: 422, fields: ['limit'] });
      }
      expect((await inbox(userId, '?limit=100')).data).toHaveLength(5);
      expect((await inbox(userId, '?limit=1')).data.map((m) => m.title)).toEqual(['m4']);
    });

    it('marks read, unread and archived; lists by state; counts reads in the statistics', async () => {
      const { userId, ids } = await withMessages(3);
      const [newest, middle, oldest] = ids;
      const read = await mark(userId, middle, { read: true });
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({ id: middle, read_at: expect.any(String), archived_at: null });
      const again = await mark(userId, middle, { read: true });
      expect(again.body.data.read_at).toBe(read.body.data.read_at);
      expect((await mark(userId, oldest, { archived: true })).body.data).toMatchObject({ archived_at: expect.any(String), read_at: null });

      const titles = async (state: string) => (await inbox(userId, `?state=${state}`)).data.map((m) => m.id);
      expect(await titles('unread')).toEqual([newest]);
      expect(await titles('read')).toEqual([middle]);
      expect(await titles('archived')).toEqual([oldest]);
      expect(await titles('all')).toEqual(ids);
      expect((await inbox(userId)).data.map((m) => m.id)).toEqual([newest, middle]);
      expect((await inbox(userId)).meta.unread).toBe(1);

      const notificationOf = (await inbox(userId, '?state=all')).data.find((m) => m.id === middle)!.notification_id;
      expect((await notificationCompleted(ctx, tenant.token, notificationOf)).statistics).toMatchObject({ inbox_stored: 1, inbox_read: 1 });
      expect((await mark(userId, middle, { read: false })).body.data.read_at).toBeNull();
      expect((await notificationCompleted(ctx, tenant.token, notificationOf)).statistics).toMatchObject({ inbox_read: 0 });
      expect((await mark(userId, oldest, { archived: false })).body.data.archived_at).toBeNull();

      const none = await mark(userId, newest, {});
      expect(none.status).toBe(422);
      expect(none.body.errors).toHaveProperty('read');
    });

    it('reads all: every unread message, archived ones as they are', async () => {
      const { userId, ids } = await withMessages(3);
      await mark(userId, ids[2], { archived: true });
      const res = await ctx.http().post(`/api/v1/users/${userId}/inbox/read-all`).set(bearer(tenant.token));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { updated: 2 } });
      expect((await inbox(userId)).meta.unread).toBe(0);
      expect((await inbox(userId, '?state=archived')).data[0].read_at).toBeNull();
      expect((await ctx.http().post(`/api/v1/users/${userId}/inbox/read-all`).set(bearer(tenant.token))).body).toEqual({ data: { updated: 0 } });
    });

    // issue 52: a list answers in O(page) however many messages the user has, in every state: the
    // page's rows are read from an index of the user and state, none read and thrown away. Each user
    // has 2,000 newer messages in the other states before the 60 of the state listed.
    // [read_at, archived_at] of the 60 listed, then of the 2,000 newer ones of another state.
    it.each<[InboxState, [string, string], [string, string]]>([
      ['inbox', ['NULL', 'NULL'], ['NULL', 'now()']],
      ['unread', ['NULL', 'NULL'], ['now()', 'NULL']],
      ['read', ['now()', 'NULL'], ['NULL', 'NULL']],
      ['archived', ['NULL', 'now()'], ['NULL', 'NULL']],
      ['all', ['NULL', 'NULL'], ['now()', 'now()']],
    ])('lists the state %s a page at a time reading only the page', async (state, [read, archived], other) => {
      const userId = user();
      const insert = (from: number, to: number, readAt: string, archivedAt: string) =>
        ctx.db.query(
          `INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, created_at, read_at, archived_at, expires_at)
           SELECT $1, $2, gen_random_uuid(), 'm' || n, 'b', now() - make_interval(secs => 100000 - n), ${readAt}, ${archivedAt}, now() + interval '1 day'
           FROM generate_series($3::int, $4::int) n`,
          [tenant.appId, userId, from, to],
        );
      await insert(1, 60, read, archived);
      await insert(61, 2060, ...other);
      await ctx.db.query(`ANALYZE inbox_messages`);

      const plan = async (after: { createdAtMicros: string; id: string } | null) => {
        const statement = listStatement(state);
        const values = valuesOf(statement, {
          app_id: tenant.appId,
          user_id: userId,
          limit: 21,
          after_micros: after?.createdAtMicros ?? null,
          after_id: after?.id ?? null,
        });
        const [
          {
            'QUERY PLAN': [explained],
          },
        ] = await ctx.db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, values);
        const rows = await ctx.db.query<{ id: string; title: string; created_at_micros: string }[]>(statement.text, values);
        const scans: Record<string, any>[] = [];
        const walk = (node: Record<string, any>) => {
          if (node['Relation Name'] === 'inbox_messages') scans.push(node);
          for (const child of node.Plans ?? []) walk(child);
        };
        walk(explained.Plan);
        const read = scans.reduce((sum, scan) => sum + scan['Actual Rows'] * (scan['Actual Loops'] ?? 1) + (scan['Rows Removed by Filter'] ?? 0), 0);
        return { rows, read, indexes: scans.map((scan) => scan['Index Name']) };
      };
      const first = await plan(null);
      const expected = state === 'all' ? ['m2060', 'm2059'] : ['m60', 'm59'];
      expect(first.rows.slice(0, 2).map((r) => r.title)).toEqual(expected);
      expect({ read: first.read, indexes: first.indexes }).toEqual({ read: 21, indexes: [expect.any(String)] });
      const last = first.rows[19];
      const second = await plan({ createdAtMicros: last.created_at_micros, id: last.id });
      expect(second.rows).toHaveLength(21);
      expect(second.read).toBe(21);
    });

    // issue 52: the unread count too costs the same however many messages the user has: it reads
    // at most INBOX_UNREAD_CAP entries of the unread index, and says that many beyond.
    it('counts unread messages up to INBOX_UNREAD_CAP, reading no more of the unread index', async () => {
      const userId = user();
      const insert = (count: number, readAt: string) =>
        ctx.db.query(
          `INSERT INTO inbox_messages (app_id, user_id, notification_id, title, body, created_at, read_at, expires_at)
           SELECT $1, $2, gen_random_uuid(), 'm' || n, 'b', now() - make_interval(secs => n), ${readAt}, now() + interval '1 day'
           FROM generate_series(1, $3::int) n`,
          [tenant.appId, userId, count],
        );
      await insert(INBOX_UNREAD_CAP - 1, 'NULL');
      await insert(3000, 'now()');
      await ctx.db.query(`ANALYZE inbox_messages`);
      const unread = async () =>
        (await ctx.http().get(`/api/v1/users/${userId}/inbox?limit=1`).set(bearer(tenant.token)).expect(200)).body.meta.unread as number;
      await expect(unread()).resolves.toBe(INBOX_UNREAD_CAP - 1);
      await insert(INBOX_UNREAD_CAP + 1, 'NULL');
      await expect(unread()).resolves.toBe(INBOX_UNREAD_CAP);

      const values = valuesOf(unreadStatement, { app_id: tenant.appId, user_id: userId, cap: INBOX_UNREAD_CAP });
      const [
        {
          'QUERY PLAN': [explained],
        },
      ] = await ctx.db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${unreadStatement.text}`, values);
      const scans: Record<string, any>[] = [];
      const walk = (node: Record<string, any>) => {
        if (node['Relation Name'] === 'inbox_messages') scans.push(node);
        for (const child of node.Plans ?? []) walk(child);
      };
      walk(explained.Plan);
      expect(scans.map((scan) => [scan['Index Name'], scan['Actual Rows'], scan['Rows Removed by Filter'] ?? 0])).toEqual([
        [expect.any(String), INBOX_UNREAD_CAP, 0],
      ]);
    });

    it("never shows another user's or another app's message: 404", async () => {
      const { userId, ids } = await withMessages(1);
      const stranger = user();
      expect((await mark(stranger, ids[0], { read: true })).status).toBe(404);
      expect((await inbox(stranger)).data).toEqual([]);
      const other = await newApp(ctx, 'Another app');
      expect((await mark(userId, ids[0], { read: true }, other.token)).status).toBe(404);
      expect((await inbox(userId, '', other.token)).data).toEqual([]);
      expect((await mark(userId, 'not-a-uuid', { read: true })).status).toBe(404);
      expect((await inbox(userId, '?state=all')).data[0].read_at).toBeNull();
    });

    it("expires messages after the app's inbox days: gone from every answer, deleted by retention", async () => {
      await ctx.get(AppsService).updateSettings(tenant.appId, { inbox_days: 7 });
      try {
        const { userId, ids } = await withMessages(2);
        const [row] = await ctx.db.query(`SELECT created_at, expires_at FROM inbox_messages WHERE id = $1`, [ids[0]]);
        expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(7 * 86_400_000);
        await ctx.db.query(`UPDATE inbox_messages SET expires_at = now() - interval '1 second' WHERE id = $1`, [ids[0]]);
        expect((await inbox(userId, '?state=all')).data.map((m) => m.id)).toEqual([ids[1]]);
        expect((await inbox(userId)).meta.unread).toBe(1);
        expect((await mark(userId, ids[0], { read: true })).status).toBe(404);
        expect((await ctx.http().post(`/api/v1/users/${userId}/inbox/read-all`).set(bearer(tenant.token))).body.data.updated).toBe(1);
        const report = await ctx.get(RetentionService).run();
        expect(report.inboxMessagesDeleted).toBeGreaterThanOrEqual(1);
        expect(await ctx.db.query(`SELECT id FROM inbox_messages WHERE id = $1`, [ids[0]])).toEqual([]);
      } finally {
        await ctx.get(AppsService).updateSettings(tenant.appId, { inbox_days: 90 });
      }
    });

    it('gives an inbox.read webhook event for a message read now, not for a second read', async () => {
      const { userId, ids } = await withMessages(2);
      const [hook] = await ctx.db.query(
        `INSERT INTO webhooks (app_id, url, events, secret_enc) VALUES ($1, 'https://example.com/hook', $2, 'x') RETURNING id`,
        [tenant.appId, ['inbox.read']],
      );
      try {
        await mark(userId, ids[0], { read: true });
        await mark(userId, ids[0], { read: true });
        await ctx.http().post(`/api/v1/users/${userId}/inbox/read-all`).set(bearer(tenant.token));
        const events = await ctx.db.query(`SELECT type, subject_id FROM webhook_messages WHERE webhook_id = $1 ORDER BY subject_id`, [hook.id]);
        expect(events).toEqual([...ids].sort().map((id) => ({ type: 'inbox.read', subject_id: id })));
      } finally {
        await ctx.db.query(`DELETE FROM webhooks WHERE id = $1`, [hook.id]);
      }
    });
  });

  describe('who may call (docs/api.md#user-access)', () => {
    it('users:manage for any user; users:self for the user its X-User-Id-Hash proves; neither: 403, on every route', async () => {
      const app = await newApp(ctx, 'Inbox access');
      const [mine, theirs] = [user(), user()];
      const id = (
        await ctx
          .http()
          .post('/api/v1/notifications')
          .set(bearer(app.token))
          .send({ recipients: { user_ids: [mine, theirs] }, notification: { title: 'Hi', body: 'there' }, options: { channels: ['inbox'] } })
          .expect(202)
      ).body.data.id as string;
      await notificationCompleted(ctx, app.token, id);
      const [theirMessage] = await ctx.db.query<{ id: string }[]>(`SELECT id FROM inbox_messages WHERE notification_id = $1 AND user_id = $2`, [id, theirs]);
      const manage = await newToken(ctx, app.appId, ['users:manage']);
      const self = await newToken(ctx, app.appId, ['users:self']);
      const neither = await newToken(ctx, app.appId, ['installations:write', 'notifications:read']);
      const secret = (await ctx.get(AppsService).identitySecret(app.appId, {}))!.secret;
      await ctx.get(AppsService).updateSettings(app.appId, { identity_verification: true });
      const proof = (userId: string) => ({ 'X-User-Id-Hash': userIdHash(secret, userId) });

      const calls = (userId: string, messageId: string) => [
        () => ctx.http().get(`/api/v1/users/${userId}/inbox`),
        () => ctx.http().patch(`/api/v1/users/${userId}/inbox/${messageId}`).send({ read: false }),
        () => ctx.http().post(`/api/v1/users/${userId}/inbox/read-all`),
        () => ctx.http().get(`/api/v1/users/${userId}/inbox/stream`),
      ];
      for (const call of calls(theirs, theirMessage.id)) {
        expect((await call().set(bearer(neither))).status).toBe(403);
        // users:self: without the hash, with another user's hash, with the hash of the user it names in place of theirs.
        expect((await call().set(bearer(self))).status).toBe(403);
        expect((await call().set({ ...bearer(self), ...proof(mine) })).status).toBe(403);
      }
      // Its own user's path with its proof: never another user's message (404).
      expect(
        (
          await ctx
            .http()
            .patch(`/api/v1/users/${mine}/inbox/${theirMessage.id}`)
            .set({ ...bearer(self), ...proof(mine) })
            .send({ read: true })
        ).status,
      ).toBe(404);
      const own = await ctx
        .http()
        .get(`/api/v1/users/${mine}/inbox`)
        .set({ ...bearer(self), ...proof(mine) });
      expect(own.status).toBe(200);
      expect(own.body.data.map((m: { user_id: string }) => m.user_id)).toEqual([mine]);
      const managed = await ctx.http().get(`/api/v1/users/${theirs}/inbox`).set(bearer(manage));
      expect(managed.status).toBe(200);
      expect(managed.body.data.map((m: { id: string }) => m.id)).toEqual([theirMessage.id]);
      const streamed = await new Promise<number>((resolve, reject) => {
        const server = ctx.app.getHttpServer();
        const open = () => {
          const req = httpGet(
            {
              host: '127.0.0.1',
              port: (server.address() as AddressInfo).port,
              path: `/api/v1/users/${mine}/inbox/stream`,
              headers: { ...bearer(self), ...proof(mine) },
            },
            (res) => {
              resolve(res.statusCode!);
              res.destroy();
            },
          );
          req.on('error', reject);
        };
        if (server.listening) open();
        else server.listen(0, '127.0.0.1', open);
      });
      expect(streamed).toBe(200);
    });
    it("another app's tokens, whatever their abilities, never see or change this app's messages", async () => {
      const userId = user();
      const id = await send({ recipients: { user_ids: [userId] }, options: { channels: ['inbox'] } });
      await notificationCompleted(ctx, tenant.token, id);
      const [message] = (await inbox(userId)).data;
      const other = await newApp(ctx, 'Elsewhere');
      const secret = (await ctx.get(AppsService).identitySecret(other.appId, {}))!.secret;
      await ctx.get(AppsService).updateSettings(other.appId, { identity_verification: true });
      const proof = { 'X-User-Id-Hash': userIdHash(secret, userId) };
      const tokens: [string, Record<string, string>][] = [
        [other.token, {}],
        [await newToken(ctx, other.appId, ['users:manage']), {}],
        [await newToken(ctx, other.appId, ['users:self']), proof],
      ];
      for (const [token, headers] of tokens) {
        const call = (req: ReturnType<ReturnType<typeof ctx.http>['get']>) => req.set({ ...bearer(token), ...headers });
        const path = `/api/v1/users/${userId}/inbox`;
        const listed = await call(ctx.http().get(`${path}?state=all`));
        expect({ status: listed.status, data: listed.body.data, unread: listed.body.meta.unread }).toEqual({ status: 200, data: [], unread: 0 });
        expect((await call(ctx.http().patch(`${path}/${message.id}`)).send({ read: true, archived: true })).status).toBe(404);
        expect((await call(ctx.http().post(`${path}/read-all`))).body).toEqual({ data: { updated: 0 } });
      }
      expect((await inbox(userId)).data).toEqual([message]);
    });
  });

  describe('the stream (docs/api.md#inbox-stream)', () => {
    interface StreamEvent {
      id?: string;
      event?: string;
      data?: string;
      comment?: string;
    }
    let port = 0;
    beforeAll(async () => {
      const server = ctx.app.getHttpServer();
      if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    const open: IncomingMessage[] = [];
    afterEach(() => open.splice(0).forEach((res) => res.destroy()));

    /** Opens the user's stream; its events as they come. */
    const stream = (userId: string, headers: Record<string, string> = {}) =>
      new Promise<{ res: IncomingMessage; events: StreamEvent[] }>((resolve, reject) => {
        const req = httpGet(
          { host: '127.0.0.1', port, path: `/api/v1/users/${encodeURIComponent(userId)}/inbox/stream`, headers: { ...bearer(tenant.token), ...headers } },
          (res) => {
            open.push(res);
            const events: StreamEvent[] = [];
            let buffered = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              buffered += chunk;
              let end: number;
              while ((end = buffered.indexOf('\n\n')) >= 0) {
                const block = buffered.slice(0, end);
                buffered = buffered.slice(end + 2);
                const event: StreamEvent = {};
                for (const line of block.split('\n')) {
                  if (line.startsWith(':')) event.comment = line.slice(1).trim();
                  else if (line.startsWith('id: ')) event.id = line.slice(4);
                  else if (line.startsWith('event: ')) event.event = line.slice(7);
                  else if (line.startsWith('data: ')) event.data = line.slice(6);
                }
                events.push(event);
              }
            });
            resolve({ res, events });
          },
        );
        req.on('error', reject);
      });
    const unreadCounts = (events: StreamEvent[]) => events.filter((e) => e.event === 'unread').map((e) => JSON.parse(e.data!).unread as number);
    const messages = (events: StreamEvent[]) => events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data!) as Record<string, any>);

    it('is text/event-stream: the unread count at once, then messages stored by the fan-out and counts after any change', async () => {
      const userId = user();
      const { res, events } = await stream(userId);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      await waitFor(async () => unreadCounts(events).length === 1, 'the first unread event');
      expect(unreadCounts(events)).toEqual([0]);
      // The stream's position: no message yet.
      expect(events.find((e) => e.event === 'unread')!.id).toBe('0');

      const id = await send({ recipients: { user_ids: [userId, user()] }, options: { channels: ['push', 'inbox'] } });
      const [message] = await waitFor(async () => messages(events).length === 1 && messages(events), 'the message event');
      expect(message).toMatchObject({ notification_id: id, user_id: userId, title: 'Shipped', read_at: null });
      expect(events.find((e) => e.event === 'message')!.id).toBe(message.id);
      await waitFor(async () => unreadCounts(events).at(-1) === 1, 'unread 1');

      await ctx.http().patch(`/api/v1/users/${userId}/inbox/${message.id}`).set(bearer(tenant.token)).send({ read: true }).expect(200);
      await waitFor(async () => unreadCounts(events).at(-1) === 0, 'unread 0 after the read');
      expect(messages(events)).toHaveLength(1);
    });

    it("sends only the user's own messages", async () => {
      const [mine, theirs] = [user(), user()];
      const { events } = await stream(mine);
      await send({ recipients: { user_ids: [theirs] }, options: { channels: ['inbox'] } });
      const id = await send({ recipients: { user_ids: [mine] }, options: { channels: ['inbox'] } });
      await waitFor(async () => messages(events).length === 1, 'my message');
      expect(messages(events).map((m) => m.notification_id)).toEqual([id]);
    });

    it('catches up after Last-Event-ID: the messages stored after it, oldest first', async () => {
      const userId = user();
      const sent: string[] = [];
      for (const title of ['a', 'b', 'c']) {
        const id = await send({ recipients: { user_ids: [userId] }, notification: { title, body: 'x' }, options: { channels: ['inbox'] } });
        await notificationCompleted(ctx, tenant.token, id);
        sent.push(id);
      }
      const [c, b, a] = (await inbox(userId)).data;
      expect([a.title, b.title, c.title]).toEqual(['a', 'b', 'c']);
      const { events } = await stream(userId, { 'Last-Event-ID': a.id });
      await waitFor(async () => unreadCounts(events).length === 1, 'the unread event after the catch-up');
      expect(events.filter((e) => e.event === 'message').map((e) => e.id)).toEqual([b.id, c.id]);
      expect(unreadCounts(events)).toEqual([3]);
      expect(events.find((e) => e.event === 'unread')!.id).toBe(c.id);
      // A client that had no message yet reconnects from position 0: every message, oldest first.
      const fromTheFirst = await stream(userId, { 'Last-Event-ID': '0' });
      await waitFor(async () => unreadCounts(fromTheFirst.events).length === 1, 'the unread event after catching up from 0');
      expect(fromTheFirst.events.filter((e) => e.event === 'message').map((e) => e.id)).toEqual([a.id, b.id, c.id]);
    });

    it('says a comment line every INBOX_STREAM_HEARTBEAT_MS', async () => {
      const { events } = await stream(user());
      await waitFor(async () => events.some((e) => e.comment === 'keep-alive'), 'a keep-alive comment', 10_000);
    });
  });
});
