import { createHmac } from 'node:crypto';
import { AppsService } from '../../src/apps/apps.service';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, newToken, type TestTenant } from '../support/factories';

const hash = (secret: string, userId: string) => createHmac('sha256', secret).update(userId).digest('hex');
const FORBIDDEN = { message: 'This action is unauthorized.' };

/** Contract 24 (docs/api.md#topics-and-preferences): topics, preferences and who may call. */
describe('topics and preferences', () => {
  const ctx = useTestApp();
  let tenant: TestTenant;
  let writer: string;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    writer = await newToken(ctx, tenant.appId, ['topics:write']);
  });

  const putTopic = (key: string, body: Record<string, unknown>, token = writer) => ctx.http().put(`/api/v1/topics/${key}`).set(bearer(token)).send(body);

  describe('topics', () => {
    it('creates (201), replaces (200), reads, lists and deletes a topic', async () => {
      const created = await putTopic('promotions', { name: 'Promotions', description: 'Sales', default: 'subscribed' }).expect(201);
      expect(created.body.data).toEqual({
        key: 'promotions',
        name: 'Promotions',
        description: 'Sales',
        default: 'subscribed',
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      });
      const replaced = await putTopic('promotions', { name: 'Offers', default: 'unsubscribed' }).expect(200);
      expect(replaced.body.data).toMatchObject({
        key: 'promotions',
        name: 'Offers',
        description: null,
        default: 'unsubscribed',
        created_at: created.body.data.created_at,
      });
      expect((await ctx.http().get('/api/v1/topics/promotions').set(bearer(writer)).expect(200)).body.data).toEqual(replaced.body.data);

      // Any token of the app lists them; another app sees none of them.
      const client = await newToken(ctx, tenant.appId, ['installations:write']);
      const listed = await ctx.http().get('/api/v1/topics').set(bearer(client)).expect(200);
      expect(listed.body).toEqual({ data: [replaced.body.data], meta: { next_cursor: null } });
      const other = await newApp(ctx, 'Other');
      expect((await ctx.http().get('/api/v1/topics').set(bearer(other.token)).expect(200)).body.data).toEqual([]);
      await ctx.http().get('/api/v1/topics/promotions').set(bearer(other.token)).expect(404, { message: 'Not Found' });
      await ctx.http().delete('/api/v1/topics/promotions').set(bearer(other.token)).expect(404);

      await ctx.http().delete('/api/v1/topics/promotions').set(bearer(writer)).expect(204);
      await ctx.http().get('/api/v1/topics/promotions').set(bearer(writer)).expect(404);
      await ctx.http().delete('/api/v1/topics/promotions').set(bearer(writer)).expect(404);
    });

    it('needs topics:write to write or read one topic, and validates the key and body', async () => {
      const sender = await newToken(ctx, tenant.appId, ['notifications:send']);
      await putTopic('news', { name: 'News', default: 'subscribed' }, sender).expect(403, FORBIDDEN);
      await ctx.http().get('/api/v1/topics/news').set(bearer(sender)).expect(403);
      await ctx.http().delete('/api/v1/topics/news').set(bearer(sender)).expect(403);
      await ctx.http().get('/api/v1/topics').expect(401);

      const badKey = await putTopic('News!', { name: 'News', default: 'subscribed' });
      expect({ status: badKey.status, errors: badKey.body.errors }).toEqual({
        status: 422,
        errors: { key: ['The key field may contain only lower-case letters, digits, _ and -.'] },
      });
      const badBody = await putTopic('news', { name: '', description: 'x'.repeat(501), default: 'maybe' });
      expect(badBody.status).toBe(422);
      expect(Object.keys(badBody.body.errors).sort()).toEqual(['default', 'description', 'name']);
      expect((await putTopic('x'.repeat(65), { name: 'N', default: 'subscribed' })).status).toBe(422);
      // The bounds themselves (contract 24: key 1..64, name 1..100, description 0..500 or null).
      const tooLong = await putTopic('news', { name: 'n'.repeat(101), description: null, default: 'subscribed' });
      expect({ status: tooLong.status, fields: Object.keys(tooLong.body.errors) }).toEqual({ status: 422, fields: ['name'] });
      await putTopic('k'.repeat(64), { name: 'n'.repeat(100), description: 'd'.repeat(500), default: 'unsubscribed' }).expect(201);
      await putTopic('k'.repeat(64), { name: 'N', description: '', default: 'unsubscribed' }).expect(200);
      await ctx
        .http()
        .delete(`/api/v1/topics/${'k'.repeat(64)}`)
        .set(bearer(writer))
        .expect(204);
    });

    it('keeps an app to 100 topics, while replacing one stays possible', async () => {
      const app = await newApp(ctx, 'Many topics');
      for (let i = 0; i < 100; i++) await putTopic(`t${i}`, { name: `T${i}`, default: 'subscribed' }, app.token).expect(201);
      const refused = await putTopic('t100', { name: 'T100', default: 'subscribed' }, app.token);
      expect({ status: refused.status, errors: refused.body.errors }).toEqual({
        status: 422,
        errors: { key: ['The app already has 100 topics, the most it may have: delete one first.'] },
      });
      await putTopic('t5', { name: 'Five', default: 'unsubscribed' }, app.token).expect(200);
      await ctx.http().delete('/api/v1/topics/t0').set(bearer(app.token)).expect(204);
      await putTopic('t100', { name: 'T100', default: 'subscribed' }, app.token).expect(201);
    });
  });

  describe('preferences', () => {
    let manager: string;

    beforeAll(async () => {
      manager = await newToken(ctx, tenant.appId, ['users:manage']);
      await putTopic('orders', { name: 'Order updates', default: 'subscribed' }).expect(201);
      await putTopic('deals', { name: 'Deals', default: 'unsubscribed' }).expect(201);
    });

    const get = (userId: string, token = manager, headers: Record<string, string> = {}) =>
      ctx
        .http()
        .get(`/api/v1/users/${encodeURIComponent(userId)}/preferences`)
        .set(bearer(token))
        .set(headers);
    const patch = (userId: string, body: unknown, token = manager, headers: Record<string, string> = {}) =>
      ctx
        .http()
        .patch(`/api/v1/users/${encodeURIComponent(userId)}/preferences`)
        .set(bearer(token))
        .set(headers)
        .send(body as object);

    it('answers the defaults for a user who never chose', async () => {
      expect((await get('nobody').expect(200)).body).toEqual({
        data: {
          user_id: 'nobody',
          topics: { orders: { subscribed: true, source: 'default' }, deals: { subscribed: false, source: 'default' } },
          channels: { push: true, inbox: true },
        },
      });
    });

    it('changes what the body names, and null returns to the default', async () => {
      const changed = await patch('ann', { topics: { orders: false, deals: true }, channels: { push: false } }).expect(200);
      expect(changed.body.data).toEqual({
        user_id: 'ann',
        topics: { orders: { subscribed: false, source: 'user' }, deals: { subscribed: true, source: 'user' } },
        channels: { push: false, inbox: true },
      });
      const back = await patch('ann', { topics: { orders: null }, channels: { inbox: false } }).expect(200);
      expect(back.body.data).toEqual({
        user_id: 'ann',
        topics: { orders: { subscribed: true, source: 'default' }, deals: { subscribed: true, source: 'user' } },
        channels: { push: false, inbox: false },
      });
      await patch('ann', { channels: { push: null, inbox: null } }).expect(200);
      expect((await get('ann')).body.data.channels).toEqual({ push: true, inbox: true });
      // Another user is untouched.
      expect((await get('bob')).body.data.topics.orders).toEqual({ subscribed: true, source: 'default' });
    });

    it('refuses an unknown topic at its own path, changing nothing', async () => {
      const res = await patch('ann', { topics: { deals: false, nosuch: true } });
      expect({ status: res.status, errors: res.body.errors }).toEqual({
        status: 422,
        errors: { 'topics.nosuch': ['The topics.nosuch field names no topic of the app.'] },
      });
      expect((await get('ann')).body.data.topics.deals).toEqual({ subscribed: true, source: 'user' });
    });

    it('validates the body and the user id', async () => {
      const empty = await patch('ann', {});
      expect({ status: empty.status, errors: empty.body.errors }).toEqual({
        status: 422,
        errors: { body: ['The request body must contain at least one of topics, channels.'] },
      });
      const wrong = await patch('ann', { topics: { deals: 'yes', 'Bad Key': true }, channels: { push: 1 } });
      expect(wrong.status).toBe(422);
      expect(Object.keys(wrong.body.errors).sort()).toEqual(['channels.push', 'topics.Bad Key', 'topics.deals']);
      const long = await get('u'.repeat(256));
      expect({ status: long.status, keys: Object.keys(long.body.errors ?? {}) }).toEqual({ status: 422, keys: ['user_id'] });
    });

    it("forgets a topic's choices with the topic", async () => {
      await putTopic('gone', { name: 'Gone', default: 'unsubscribed' }).expect(201);
      await patch('cat', { topics: { gone: true } }).expect(200);
      await ctx.http().delete('/api/v1/topics/gone').set(bearer(writer)).expect(204);
      await putTopic('gone', { name: 'Gone again', default: 'unsubscribed' }).expect(201);
      expect((await get('cat')).body.data.topics.gone).toEqual({ subscribed: false, source: 'default' });
    });

    describe('who may call (users:manage, users:self, X-User-Id-Hash)', () => {
      let self: string;
      let secret: string;

      beforeAll(async () => {
        self = await newToken(ctx, tenant.appId, ['users:self', 'installations:write']);
        secret = (await ctx.get(AppsService).identitySecret(tenant.appId, {}))!.secret;
      });

      afterEach(() => ctx.get(AppsService).updateSettings(tenant.appId, { identity_verification: false }));

      it('refuses a token with neither ability, before validating anything', async () => {
        const other = await newToken(ctx, tenant.appId, ['installations:write', 'notifications:send', 'topics:write']);
        await get('ann', other).expect(403, FORBIDDEN);
        await patch('ann', { channels: { push: false } }, other).expect(403, FORBIDDEN);
        await patch('ann', { topics: 'not an object' }, other).expect(403, FORBIDDEN);
        await get('ann', 'pns_unknown').expect(401);
      });

      it('lets users:self act for any user while identity verification is off', async () => {
        await get('dan', self).expect(200);
        await patch('dan', { channels: { push: false } }, self).expect(200);
      });

      it('with identity verification on, needs the hash of the very user in the path', async () => {
        await ctx.get(AppsService).updateSettings(tenant.appId, { identity_verification: true });
        await get('ann', self).expect(403, FORBIDDEN);
        await patch('ann', { channels: { push: false } }, self).expect(403, FORBIDDEN);
        // Ann's own proof reads Ann's preferences, never another user's.
        const ann = { 'X-User-Id-Hash': hash(secret, 'ann') };
        expect((await get('ann', self, ann).expect(200)).body.data.user_id).toBe('ann');
        await get('bob', self, ann).expect(403, FORBIDDEN);
        await patch('bob', { channels: { push: false } }, self, ann).expect(403, FORBIDDEN);
        expect((await get('bob')).body.data.channels.push).toBe(true);
        await get('ann', self, { 'X-User-Id-Hash': 'f'.repeat(64) }).expect(403);
        // The check comes before the body's: a malformed body without proof is a 403.
        const malformed = await ctx
          .http()
          .patch('/api/v1/users/ann/preferences')
          .set(bearer(self))
          .set('Content-Type', 'application/json')
          .send('{"channels":');
        expect(malformed.status).toBe(403);
        await patch('ann', { channels: { push: false } }, self, ann).expect(200);
        // users:manage needs no proof.
        expect((await get('bob', manager).expect(200)).body.data.user_id).toBe('bob');
      });
    });
  });
});
