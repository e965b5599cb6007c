import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Response, Test } from 'supertest';
import { bearer, newInstallation } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { type OpenApiDocument, responseChecker } from '../support/openapi-schemas';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';

const ADMIN = { user: 'ops', password: 'a-long-dashboard-password' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const DOCUMENT = JSON.parse(readFileSync(resolve(__dirname, '../../clients/admin/openapi.json'), 'utf8')) as OpenApiDocument;
const MISSING = '0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10';
const TOPICS = '/admin/api/apps/{app}/topics';
const TOPIC = '/admin/api/apps/{app}/topics/{key}';
const PREFERENCES = '/admin/api/apps/{app}/users/{user}/preferences';
const INBOX = '/admin/api/apps/{app}/users/{user}/inbox';

/**
 * Issue 52 item 5: the dashboard's user page (a user's preferences and inbox, docs/api.md#preferences
 * and #inbox) and its topics (listed with subscribers, created, edited, deleted), through
 * /admin/api with the session, as its OpenAPI document describes; another app's and another user's
 * data never show.
 */
describe("operator dashboard's users and topics (issue 52 item 5)", () => {
  const stack = useAppWithFakeProviders({ ADMIN_USER: ADMIN.user, ADMIN_PASSWORD: ADMIN.password });
  const { ctx } = stack;
  const shop = useTenantWithProviders(stack, 'Shop');
  const other = useTenantWithProviders(stack, 'Other shop');
  const check = responseChecker(DOCUMENT);
  let cookie: string;
  let csrf: string;

  const expectAnswer = async (method: string, path: string, request: Test, status: number): Promise<any> => {
    const res: Response = await request;
    const where = `${method.toUpperCase()} ${path}`;
    expect({ where, status: res.status, body: res.status === status ? undefined : res.body }).toEqual({ where, status, body: undefined });
    const problem = check(path, method, res.status, res.body, res.text ?? '');
    if (problem) throw new Error(`${where}: ${problem}`);
    return res.body;
  };
  const get = (url: string) => ctx.http().get(url).set('Cookie', cookie);
  const put = (url: string) => ctx.http().put(url).set('Cookie', cookie).set('X-CSRF-Token', csrf);
  const del = (url: string) => ctx.http().delete(url).set('Cookie', cookie).set('X-CSRF-Token', csrf);
  const topics = async (appId: string) => (await expectAnswer('get', TOPICS, get(`/admin/api/apps/${appId}/topics`), 200)).data as Record<string, any>[];
  const publicPut = (token: string, key: string, body: object) => ctx.http().put(`/api/v1/topics/${key}`).set(bearer(token)).send(body).expect(201);
  const choose = (token: string, user: string, body: object) =>
    ctx
      .http()
      .patch(`/api/v1/users/${encodeURIComponent(user)}/preferences`)
      .set(bearer(token))
      .send(body)
      .expect(200);

  beforeAll(async () => {
    const login = await ctx.http().post('/admin/api/session').set('Authorization', basic(ADMIN.user, ADMIN.password)).expect(200);
    cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    csrf = login.body.data.csrf_token;

    // Shop: ann (two phones) opted out of promotions, bob opted into orders, carl chose nothing.
    await publicPut(shop.token, 'promotions', { name: 'Promotions', default: 'subscribed' });
    await publicPut(shop.token, 'orders', { name: 'Order updates', description: 'Where your parcel is.', default: 'unsubscribed' });
    for (const user of ['ann', 'ann', 'bob', 'carl']) await newInstallation(ctx, shop.token, { user_id: user });
    await choose(shop.token, 'ann', { topics: { promotions: false }, channels: { push: false } });
    await choose(shop.token, 'bob', { topics: { orders: true } });
    // The other app has a user called ann too, and a topic of its own.
    await publicPut(other.token, 'secret-sales', { name: 'Secret sales', default: 'subscribed' });
    await newInstallation(ctx, other.token, { user_id: 'ann' });
  });

  it('lists the topics with their subscribers, and creates, edits and deletes them; never another app’s', async () => {
    const shopTopics = await topics(shop.appId);
    expect(shopTopics.map((t) => [t.key, t.name, t.default, t.subscribers])).toEqual([
      ['orders', 'Order updates', 'unsubscribed', 1],
      ['promotions', 'Promotions', 'subscribed', 2],
    ]);
    expect(shopTopics[0].description).toBe('Where your parcel is.');
    expect((await topics(other.appId)).map((t) => [t.key, t.subscribers])).toEqual([['secret-sales', 1]]);

    const news = `/admin/api/apps/${shop.appId}/topics/news`;
    const created = await expectAnswer('put', TOPIC, put(news).send({ name: 'News', default: 'unsubscribed' }), 200);
    expect(created.data).toMatchObject({ key: 'news', name: 'News', description: null, default: 'unsubscribed' });
    const edited = await expectAnswer('put', TOPIC, put(news).send({ name: 'Breaking news', description: 'Rarely.', default: 'subscribed' }), 200);
    expect(edited.data).toMatchObject({ key: 'news', name: 'Breaking news', description: 'Rarely.', default: 'subscribed' });
    // The API's own list sees what the dashboard wrote; the other app's does not.
    const listed = await ctx.http().get('/api/v1/topics').set(bearer(shop.token)).expect(200);
    expect(listed.body.data.map((t: { key: string }) => t.key)).toEqual(['news', 'orders', 'promotions']);
    expect((await topics(shop.appId)).find((t) => t.key === 'news')).toMatchObject({ subscribers: 3 });
    expect((await topics(other.appId)).map((t) => t.key)).toEqual(['secret-sales']);

    // Refusals: the body as the API validates it, the key, the CSRF token, another app's topic.
    const bad = await expectAnswer('put', TOPIC, put(news).send({ name: '', default: 'maybe' }), 422);
    expect(Object.keys(bad.errors).sort()).toEqual(['default', 'name']);
    await expectAnswer('put', TOPIC, put(`/admin/api/apps/${shop.appId}/topics/Not%20a%20key`).send({ name: 'X', default: 'subscribed' }), 422);
    await expectAnswer('put', TOPIC, ctx.http().put(news).set('Cookie', cookie).send({ name: 'X', default: 'subscribed' }), 403);
    await expectAnswer('put', TOPIC, put(`/admin/api/apps/${MISSING}/topics/news`).send({ name: 'X', default: 'subscribed' }), 404);
    await expectAnswer('delete', TOPIC, del(`/admin/api/apps/${shop.appId}/topics/secret-sales`), 404);
    await expectAnswer('delete', TOPIC, ctx.http().delete(news).set('Cookie', cookie), 403);

    await expectAnswer('delete', TOPIC, del(news), 204);
    await expectAnswer('delete', TOPIC, del(news), 404);
    expect((await topics(shop.appId)).map((t) => t.key)).toEqual(['orders', 'promotions']);
    expect((await topics(other.appId)).map((t) => t.key)).toEqual(['secret-sales']);
    await expectAnswer('get', TOPICS, get(`/admin/api/apps/${MISSING}/topics`), 404);
    await expectAnswer('get', TOPICS, ctx.http().get(`/admin/api/apps/${shop.appId}/topics`), 401);
  });

  it('shows a user’s preferences and inbox, never another user’s or another app’s', async () => {
    const send = async (token: string, user: string, title: string) => {
      const res = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(token))
        .send({ recipients: { user_ids: [user] }, notification: { title, body: 'b' }, options: { channels: ['inbox'] } })
        .expect(202);
      await notificationCompleted(ctx, token, res.body.data.id);
    };
    await send(shop.token, 'ann', 'First for Ann');
    await send(shop.token, 'ann', 'Second for Ann');
    await send(shop.token, 'ann', 'Third for Ann');
    await send(shop.token, 'bob', 'For Bob');
    await send(other.token, 'ann', 'The other app’s Ann');
    const annInbox = (await ctx.http().get('/api/v1/users/ann/inbox').set(bearer(shop.token)).expect(200)).body.data as { id: string; title: string }[];
    const byTitle = Object.fromEntries(annInbox.map((m) => [m.title, m.id]));
    await ctx.http().patch(`/api/v1/users/ann/inbox/${byTitle['First for Ann']}`).set(bearer(shop.token)).send({ read: true }).expect(200);
    await ctx.http().patch(`/api/v1/users/ann/inbox/${byTitle['Second for Ann']}`).set(bearer(shop.token)).send({ archived: true }).expect(200);

    const preferences = await expectAnswer('get', PREFERENCES, get(`/admin/api/apps/${shop.appId}/users/ann/preferences`), 200);
    expect(preferences.data).toEqual({
      user_id: 'ann',
      topics: { orders: { subscribed: false, source: 'default' }, promotions: { subscribed: false, source: 'user' } },
      channels: { push: false, inbox: true },
    });
    const elsewhere = await expectAnswer('get', PREFERENCES, get(`/admin/api/apps/${other.appId}/users/ann/preferences`), 200);
    expect(elsewhere.data).toEqual({
      user_id: 'ann',
      topics: { 'secret-sales': { subscribed: true, source: 'default' } },
      channels: { push: true, inbox: true },
    });

    const inbox = (app: string, user: string, query = '') =>
      expectAnswer('get', INBOX, get(`/admin/api/apps/${app}/users/${encodeURIComponent(user)}/inbox${query}`), 200);
    const titles = (page: { data: { title: string }[] }) => page.data.map((m) => m.title);
    const page = await inbox(shop.appId, 'ann');
    expect(titles(page)).toEqual(['Third for Ann', 'First for Ann']);
    expect(page.meta).toEqual({ next_cursor: null, unread: 1 });
    expect(page.data.every((m: { user_id: string }) => m.user_id === 'ann')).toBe(true);
    expect(page.data[1].read_at).not.toBeNull();
    expect(titles(await inbox(shop.appId, 'ann', '?state=all'))).toEqual(['Third for Ann', 'Second for Ann', 'First for Ann']);
    expect(titles(await inbox(shop.appId, 'ann', '?state=archived'))).toEqual(['Second for Ann']);
    expect(titles(await inbox(shop.appId, 'ann', '?state=unread'))).toEqual(['Third for Ann']);
    const first = await inbox(shop.appId, 'ann', '?state=all&limit=2');
    expect(titles(first)).toEqual(['Third for Ann', 'Second for Ann']);
    expect(titles(await inbox(shop.appId, 'ann', `?state=all&limit=2&cursor=${encodeURIComponent(first.meta.next_cursor)}`))).toEqual(['First for Ann']);
    // Bob's and the other app's Ann's are theirs alone; a user with nothing has an empty inbox.
    expect(titles(await inbox(shop.appId, 'bob', '?state=all'))).toEqual(['For Bob']);
    expect(titles(await inbox(other.appId, 'ann', '?state=all'))).toEqual(['The other app’s Ann']);
    expect(await inbox(shop.appId, 'nobody')).toEqual({ data: [], meta: { next_cursor: null, unread: 0 } });

    await expectAnswer('get', INBOX, get(`/admin/api/apps/${shop.appId}/users/ann/inbox?state=lost`), 422);
    await expectAnswer('get', INBOX, get(`/admin/api/apps/${shop.appId}/users/${'x'.repeat(256)}/inbox`), 422);
    await expectAnswer('get', PREFERENCES, get(`/admin/api/apps/${shop.appId}/users/${'x'.repeat(256)}/preferences`), 422);
    await expectAnswer('get', INBOX, get(`/admin/api/apps/${MISSING}/users/ann/inbox`), 404);
    await expectAnswer('get', PREFERENCES, get(`/admin/api/apps/${MISSING}/users/ann/preferences`), 404);
    await expectAnswer('get', INBOX, ctx.http().get(`/admin/api/apps/${shop.appId}/users/ann/inbox`), 401);
    // The dashboard reads: nothing it did marked a message read.
    expect((await inbox(shop.appId, 'ann')).meta.unread).toBe(1);
  });
});
