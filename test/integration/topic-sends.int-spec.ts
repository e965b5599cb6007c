import { randomUUID } from 'node:crypto';
import { apnsToken, bearer, newApp, newInstallation } from '../support/factories';
import { configureProviders } from '../support/providers';
import { notificationCompleted } from '../support/notifications';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { chunkZonesStatement } from '../../src/delivery/fan-out/chunk-statement';
import { valuesOf } from '../../src/common/sql/named';

/** Contract 24's sends (docs/api.md#topic-sends): options.topic, recipients.topic and channels.push, API to provider in one process. */
describe('topic sends and channel preferences', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Topics');

  const api = () => ctx.http();
  const send = (body: Record<string, unknown>) =>
    api()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ notification: { title: 'Hello', body: 'World' }, ...body });
  const sent = async (body: Record<string, unknown>): Promise<string> => {
    const res = await send(body);
    expect({ status: res.status, body: res.status === 202 ? null : res.body }).toEqual({ status: 202, body: null });
    return res.body.data.id as string;
  };
  const trace = async (id: string) =>
    ((await api().get(`/api/v1/notifications/${id}/deliveries?limit=1000`).set(bearer(tenant.token)).expect(200)).body.data as Record<string, any>[])
      .map((d) => ({ user: d.user_id as string | null, status: d.status as string, reason: d.reason as string | null }))
      .sort((a, b) => String(a.user).localeCompare(String(b.user)));
  const prefer = (user: string, body: Record<string, unknown>) =>
    api().patch(`/api/v1/users/${user}/preferences`).set(bearer(tenant.token)).send(body).expect(200);
  const topic = (key: string, dflt: 'subscribed' | 'unsubscribed') =>
    api().put(`/api/v1/topics/${key}`).set(bearer(tenant.token)).send({ name: key, default: dflt }).expect(201);
  /** One iOS installation for each of `users` (a fresh prefix keeps tests apart); the user ids. */
  const iosUsers = async (names: string[]): Promise<string[]> => {
    const prefix = randomUUID().slice(0, 8);
    const users = names.map((name) => `${prefix}-${name}`);
    for (const user of users) await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: user });
    return users;
  };

  it('refuses an unknown topic, in options and in recipients, and two different ones', async () => {
    const inOptions = await send({ recipients: { user_ids: ['u'] }, options: { topic: 'nosuch' } });
    expect({ status: inOptions.status, errors: inOptions.body.errors }).toEqual({
      status: 422,
      errors: { 'options.topic': ['The options.topic field names no topic of the app.'] },
    });
    const inRecipients = await send({ recipients: { topic: 'nosuch' } });
    expect(inRecipients.body.errors).toEqual({ 'recipients.topic': ['The recipients.topic field names no topic of the app.'] });
    await topic('first', 'subscribed');
    await topic('second', 'subscribed');
    const both = await send({ recipients: { topic: 'first' }, options: { topic: 'second' } });
    expect(both.body.errors).toEqual({ 'options.topic': ['The options.topic field must name the same topic as recipients.topic.'] });
    const badKey = await send({ recipients: { topic: 'Not A Key' } });
    expect(Object.keys(badKey.body.errors)).toEqual(['recipients.topic']);
  });

  it.each([
    ['a fan-out', 6],
    ['a small send', 3],
  ])('options.topic skips unsubscribed users as Unsubscribed, in %s', async (_what, count) => {
    const key = `news-${count}`;
    await topic(key, 'subscribed');
    const users = await iosUsers(['a', 'b', 'c', 'd', 'e', 'f'].slice(0, count));
    await prefer(users[0], { topics: { [key]: false } });
    const id = await sent({ recipients: { user_ids: users }, options: { topic: key } });
    const done = await notificationCompleted(ctx, tenant.token, id);
    expect(done.options.topic).toBe(key);
    expect(done.statistics).toMatchObject({ installations: count, accepted: count - 1, skipped: 1 });
    expect(await trace(id)).toEqual(users.map((user, i) => ({ user, status: i === 0 ? 'skipped' : 'accepted', reason: i === 0 ? 'Unsubscribed' : null })));
  });

  it('a topic whose default is off reaches only those who subscribed', async () => {
    await topic('deals', 'unsubscribed');
    const [yes, no, silent] = await iosUsers(['yes', 'no', 'silent']);
    await prefer(yes, { topics: { deals: true } });
    await prefer(no, { topics: { deals: false } });
    const id = await sent({ recipients: { user_ids: [yes, no, silent] }, options: { topic: 'deals' } });
    await notificationCompleted(ctx, tenant.token, id);
    expect(await trace(id)).toEqual([
      { user: no, status: 'skipped', reason: 'Unsubscribed' },
      { user: silent, status: 'skipped', reason: 'Unsubscribed' },
      { user: yes, status: 'accepted', reason: null },
    ]);
  });

  it('recipients.topic reaches the subscribers only, with no trace rows for the others, and audiences/count agrees', async () => {
    await topic('orders', 'unsubscribed');
    const [a, b, c] = await iosUsers(['a', 'b', 'c']);
    await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: a });
    await prefer(a, { topics: { orders: true } });
    await prefer(c, { topics: { orders: true } });
    await prefer(b, { topics: { orders: false } });
    const count = await api()
      .post('/api/v1/audiences/count')
      .set(bearer(tenant.token))
      .send({ recipients: { topic: 'orders' } })
      .expect(200);
    expect(count.body.data).toMatchObject({ installations: 3, sendable: 3, users: 2 });
    const id = await sent({ recipients: { topic: 'orders' } });
    const done = await notificationCompleted(ctx, tenant.token, id);
    expect(done.options.topic).toBe('orders');
    expect(done.statistics).toMatchObject({ users: 2, installations: 3, accepted: 3, skipped: 0 });
    expect(done.target_users).toBe(2);
    expect((await trace(id)).map((d) => d.user)).toEqual([a, a, c]);
    const unknown = await api()
      .post('/api/v1/audiences/count')
      .set(bearer(tenant.token))
      .send({ recipients: { topic: 'nosuch' } });
    expect(unknown.body.errors).toEqual({ 'recipients.topic': ['The recipients.topic field names no topic of the app.'] });
  });

  it('recipients.topic with the default on reaches every user but those who said no', async () => {
    // A fresh app, so the walk covers only these users.
    const { appId, token } = await newApp(ctx, 'Own');
    await configureProviders(ctx, appId, stack.fakes);
    await api().put('/api/v1/topics/everyone').set(bearer(token)).send({ name: 'Everyone', default: 'subscribed' }).expect(201);
    const users = ['u1', 'u2', 'u3', 'u4', 'u5'];
    for (const user of users) await newInstallation(ctx, token, { platform: 'ios', push_token: apnsToken(), user_id: user });
    await newInstallation(ctx, token, { platform: 'ios', push_token: apnsToken() });
    await api()
      .patch('/api/v1/users/u3/preferences')
      .set(bearer(token))
      .send({ topics: { everyone: false } })
      .expect(200);
    const res = await api()
      .post('/api/v1/notifications')
      .set(bearer(token))
      .send({ recipients: { topic: 'everyone' }, notification: { title: 'Hi', body: 'All' } })
      .expect(202);
    const done = await notificationCompleted(ctx, token, res.body.data.id);
    expect(done.statistics).toMatchObject({ users: 4, installations: 4, skipped: 0 });
    const reached = (await api().get(`/api/v1/notifications/${res.body.data.id}/deliveries`).set(bearer(token)).expect(200)).body.data
      .map((d: any) => d.user_id)
      .sort();
    expect(reached).toEqual(['u1', 'u2', 'u4', 'u5']);
  });

  // issue 52: recipients.topic reaches the subscribers' installations by index, never "every
  // installation, then skip". The chunk's walk and its installations (the same CTE and predicate as
  // the chunk statement), planned on an app of 20,000 users where the topics' subscriptions are many.
  describe('the recipients.topic path is indexed', () => {
    let appId: string;
    let token: string;
    beforeAll(async () => {
      ({ appId, token } = await newApp(ctx, 'Walked'));
      for (const [key, dflt] of [
        ['walk-off', 'unsubscribed'],
        ['walk-on', 'subscribed'],
        ['other-1', 'subscribed'],
        ['other-2', 'subscribed'],
      ])
        await api().put(`/api/v1/topics/${key}`).set(bearer(token)).send({ name: key, default: dflt }).expect(201);
      await ctx.db.query(
        `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, registered_at, last_seen_at)
         SELECT $1, 'w' || n, 'android', 'tok-' || n, 'walker-' || lpad(n::text, 6, '0'), 'granted', now(), now() FROM generate_series(1, 20000) n`,
        [appId],
      );
      // Every user chose on each topic: one in ten said yes to walk-off, one in ten no to the others.
      await ctx.db.query(
        `INSERT INTO topic_subscriptions (app_id, topic_key, user_id, subscribed)
         SELECT $1, t.key, 'walker-' || lpad(n::text, 6, '0'), CASE WHEN t.key = 'walk-off' THEN n % 10 = 0 ELSE n % 10 <> 0 END
         FROM generate_series(1, 20000) n, unnest(ARRAY['walk-off', 'walk-on', 'other-1', 'other-2']) AS t(key)`,
        [appId],
      );
      await ctx.db.query(`ANALYZE installations`);
      await ctx.db.query(`ANALYZE topic_subscriptions`);
    });

    it.each([
      ['walk-off', 'default unsubscribed: the subscribers from topic_subscriptions_pkey', 'topic_subscriptions_pkey'],
      ['walk-on', "default subscribed: the app's users from installations_app_id_user_id_idx", 'installations_app_id_user_id_idx'],
    ])('%s, %s, then their installations by user', async (key, _what, walkIndex) => {
      const statement = chunkZonesStatement('topic');
      const plan = await ctx.db.query<{ 'QUERY PLAN': string }[]>(
        `EXPLAIN ${statement.text}`,
        valuesOf(statement, { app_id: appId, cursor: '', chunk_size: 5000, topic: key }),
      );
      const lines = plan.map((line) => line['QUERY PLAN']);
      expect(lines.filter((line) => line.includes('Seq Scan'))).toEqual([]);
      expect(lines.some((line) => line.includes(`using ${walkIndex} `))).toBe(true);
      const byUser = lines.findIndex((line) => line.includes('using installations_app_id_user_id_idx on installations i '));
      expect(byUser).toBeGreaterThanOrEqual(0);
      expect(lines.slice(byUser + 1, byUser + 3).some((line) => line.includes('Index Cond:') && line.includes('user_id)::text = ANY'))).toBe(true);
    });

    it('audiences/count counts exactly the subscribers there: 2,000 of 20,000 users', async () => {
      const count = await api()
        .post('/api/v1/audiences/count')
        .set(bearer(token))
        .send({ recipients: { topic: 'walk-off' } })
        .expect(200);
      expect(count.body.data).toMatchObject({ installations: 2000, users: 2000 });
    });
  });

  it('channels.push false skips marketing sends as PushDisabled, never transactional ones', async () => {
    const [quiet, loud] = await iosUsers(['quiet', 'loud']);
    const all = [quiet, loud];
    await prefer(quiet, { channels: { push: false } });
    const marketing = await sent({ recipients: { user_ids: all }, options: { category: 'marketing' } });
    await notificationCompleted(ctx, tenant.token, marketing);
    expect(await trace(marketing)).toEqual(
      [
        { user: loud, status: 'accepted', reason: null },
        { user: quiet, status: 'skipped', reason: 'PushDisabled' },
      ].sort((a, b) => a.user.localeCompare(b.user)),
    );
    const transactional = await sent({ recipients: { user_ids: all } });
    await notificationCompleted(ctx, tenant.token, transactional);
    expect((await trace(transactional)).map((d) => d.status)).toEqual(['accepted', 'accepted']);
  });
});
