import { FilterNode } from '../../src/common/audience-filter';
import { compileFilter } from '../../src/common/audience-sql';
import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, newApp, newInstallation, newToken, TestTenant } from '../support/factories';

const P256DH = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 7)]).toString('base64url');
const AUTH = Buffer.alloc(16, 3).toString('base64url');

/**
 * Audience filters (docs/api.md#audience-filters) and POST /api/v1/audiences/count
 * (docs/api.md#count-an-audience): each field and op against the real PostgreSQL.
 */
describe('audiences', () => {
  // WEB_PUSH_ALLOWED_HOSTS empty: the built-in list of public push services.
  const ctx = useTestApp({ env: { WEB_PUSH_ALLOWED_HOSTS: '' } });
  let tenant: TestTenant;
  let other: TestTenant;

  // Who is who: a1..a5 live in the tenant, a6 deleted, b1 in another app with the same properties as a1.
  const SEED: Record<string, { body: Record<string, unknown>; seenDaysAgo: number; registeredDaysAgo: number }> = {
    a1: {
      body: {
        platform: 'ios',
        permission: 'granted',
        user_id: 'u1',
        tags: ['beta'],
        device: { locale: 'fr_FR', app_version: '4.2.0' },
        properties: { plan: 'pro', purchases: 3, beta: true, code: '10' },
      },
      seenDaysAgo: 1,
      registeredDaysAgo: 400,
    },
    a2: {
      body: {
        platform: 'android',
        permission: 'granted',
        user_id: 'u2',
        device: { locale: 'fr-CA', app_version: '4.10' },
        properties: { plan: 'free', purchases: 0, beta: false, code: '9' },
      },
      seenDaysAgo: 10,
      registeredDaysAgo: 20,
    },
    a3: {
      body: {
        platform: 'android',
        permission: 'denied',
        user_id: 'u2',
        device: { locale: 'en_GB', app_version: '4.1.9' },
        properties: { plan: 'pro', purchases: '3' },
      },
      seenDaysAgo: 40,
      registeredDaysAgo: 50,
    },
    a4: { body: { platform: 'web', tags: ['beta', 'vip'] }, seenDaysAgo: 0.1, registeredDaysAgo: 0.1 },
    a5: {
      body: { platform: 'android', permission: 'granted', user_id: 'u3', device: { locale: 'DE', app_version: '5' }, properties: { plan: 'team' } },
      seenDaysAgo: 100,
      registeredDaysAgo: 100,
    },
  };

  beforeAll(async () => {
    tenant = await newApp(ctx, 'Audiences');
    other = await newApp(ctx, 'Another app');
    for (const [id, { body, seenDaysAgo, registeredDaysAgo }] of Object.entries(SEED)) {
      const token =
        body.platform === 'web'
          ? { web_push_subscription: { endpoint: `https://fcm.googleapis.com/fcm/send/${id}`, keys: { p256dh: P256DH, auth: AUTH } } }
          : {};
      await newInstallation(ctx, tenant.token, { push_token: body.platform === 'web' ? undefined : apnsToken(), ...token, ...body }, id);
      await ctx.db.query(
        `UPDATE installations SET last_seen_at = now() - $3 * interval '1 day', registered_at = now() - $4 * interval '1 day' WHERE app_id = $1 AND installation_id = $2`,
        [tenant.appId, id, seenDaysAgo, registeredDaysAgo],
      );
    }
    // a5's token was reported invalid; a6 was deleted; b1 is another app's.
    await ctx.db.query(`UPDATE installations SET invalidated_at = now() WHERE app_id = $1 AND installation_id = 'a5'`, [tenant.appId]);
    await newInstallation(ctx, tenant.token, { properties: { plan: 'pro' } }, 'a6');
    await ctx.http().delete('/api/v1/installations/a6').set(bearer(tenant.token)).expect(204);
    await newInstallation(ctx, other.token, { user_id: 'u1', tags: ['beta'], properties: SEED.a1.body.properties, device: { locale: 'fr' } }, 'b1');
  });

  /** The tenant's live installations a filter selects, by the compiled SQL, as the fan-out and the count run it. */
  const selected = async (filter: FilterNode): Promise<string[]> => {
    const { sql, params } = compileFilter(filter, 2, new Date());
    const rows: { installation_id: string }[] = await ctx.db.query(
      `SELECT installation_id FROM installations i WHERE i.app_id = $1 AND i.deleted_at IS NULL AND ${sql} ORDER BY installation_id`,
      [tenant.appId, ...params],
    );
    return rows.map((r) => r.installation_id);
  };
  const c = (field: string, op: string, value?: unknown) => (value === undefined ? { field, op } : { field, op, value }) as FilterNode;
  const count = (body: unknown, token = tenant.token) =>
    ctx
      .http()
      .post('/api/v1/audiences/count')
      .set(bearer(token))
      .send(body as object);

  it.each<[string, FilterNode, string[]]>([
    // properties: equality by type, order within a type, lists of one type, presence
    ['property eq string', c('properties.plan', 'eq', 'pro'), ['a1', 'a3']],
    ['property eq number: a string "3" does not match 3', c('properties.purchases', 'eq', 3), ['a1']],
    ['property eq string: a number 3 does not match "3"', c('properties.purchases', 'eq', '3'), ['a3']],
    ['property eq boolean', c('properties.beta', 'eq', false), ['a2']],
    ['property ne: only those that have it, of the same type', c('properties.plan', 'ne', 'pro'), ['a2', 'a5']],
    ['property ne number: the string "3" is another type, not "not 3"', c('properties.purchases', 'ne', 3), ['a2']],
    ['property lt number', c('properties.purchases', 'lt', 3), ['a2']],
    ['property lte number', c('properties.purchases', 'lte', 3), ['a1', 'a2']],
    ['property gt number', c('properties.purchases', 'gt', 0), ['a1']],
    ['property gte number', c('properties.purchases', 'gte', 0), ['a1', 'a2']],
    ['property gt string: byte order ("9" > "10")', c('properties.code', 'gt', '10'), ['a2']],
    ['property in', c('properties.plan', 'in', ['free', 'team']), ['a2', 'a5']],
    ['property not_in: not those without it', c('properties.plan', 'not_in', ['free', 'team']), ['a1', 'a3']],
    ['property not_in number', c('properties.purchases', 'not_in', [0]), ['a1']],
    ['property exists', c('properties.purchases', 'exists'), ['a1', 'a2', 'a3']],
    ['property not_exists', c('properties.purchases', 'not_exists'), ['a4', 'a5']],
    // tags
    ['tags contains', c('tags', 'contains', 'beta'), ['a1', 'a4']],
    ['tags exists', c('tags', 'exists'), ['a1', 'a4']],
    ['tags not_exists', c('tags', 'not_exists'), ['a2', 'a3', 'a5']],
    // platform and permission
    ['platform eq', c('platform', 'eq', 'android'), ['a2', 'a3', 'a5']],
    ['platform ne', c('platform', 'ne', 'android'), ['a1', 'a4']],
    ['platform in', c('platform', 'in', ['ios', 'web']), ['a1', 'a4']],
    ['platform not_in', c('platform', 'not_in', ['ios', 'web']), ['a2', 'a3', 'a5']],
    ['permission eq', c('permission', 'eq', 'unknown'), ['a4']],
    ['permission ne', c('permission', 'ne', 'granted'), ['a3', 'a4']],
    ['permission in', c('permission', 'in', ['denied', 'unknown']), ['a3', 'a4']],
    ['permission not_in', c('permission', 'not_in', ['granted']), ['a3', 'a4']],
    // language: the primary subtag of device.locale, lower case
    ['language eq', c('language', 'eq', 'fr'), ['a1', 'a2']],
    ['language eq, any case', c('language', 'eq', 'De'), ['a5']],
    ['language ne: not those without a locale', c('language', 'ne', 'fr'), ['a3', 'a5']],
    ['language in', c('language', 'in', ['en', 'de']), ['a3', 'a5']],
    ['language not_in', c('language', 'not_in', ['en']), ['a1', 'a2', 'a5']],
    ['language exists', c('language', 'exists'), ['a1', 'a2', 'a3', 'a5']],
    ['language not_exists', c('language', 'not_exists'), ['a4']],
    // app_version: dot-separated numbers
    ['app_version gte: 4.10 > 4.2, 5 > 4.2, 4.1.9 < 4.2', c('app_version', 'gte', '4.2'), ['a1', 'a2', 'a5']],
    ['app_version gt', c('app_version', 'gt', '4.2'), ['a2', 'a5']],
    ['app_version lt', c('app_version', 'lt', '4.9'), ['a1', 'a3']],
    ['app_version lte', c('app_version', 'lte', '4.2'), ['a1', 'a3']],
    ['app_version eq: 4.2.0 = 4.2', c('app_version', 'eq', '4.2'), ['a1']],
    ['app_version ne: not those without one', c('app_version', 'ne', '4.2'), ['a2', 'a3', 'a5']],
    ['app_version exists', c('app_version', 'exists'), ['a1', 'a2', 'a3', 'a5']],
    ['app_version not_exists', c('app_version', 'not_exists'), ['a4']],
    // user_id
    ['user_id eq', c('user_id', 'eq', 'u2'), ['a2', 'a3']],
    ['user_id ne: not those without one', c('user_id', 'ne', 'u2'), ['a1', 'a5']],
    ['user_id in', c('user_id', 'in', ['u1', 'u3']), ['a1', 'a5']],
    ['user_id not_in', c('user_id', 'not_in', ['u1', 'u3']), ['a2', 'a3']],
    ['user_id exists', c('user_id', 'exists'), ['a1', 'a2', 'a3', 'a5']],
    ['user_id not_exists', c('user_id', 'not_exists'), ['a4']],
    // dates
    ['last_seen_at within_last', c('last_seen_at', 'within_last', '7d'), ['a1', 'a4']],
    ['last_seen_at within_last hours', c('last_seen_at', 'within_last', '3h'), ['a4']],
    ['last_seen_at not_within_last', c('last_seen_at', 'not_within_last', '30d'), ['a3', 'a5']],
    ['last_seen_at within_last minutes', c('last_seen_at', 'within_last', '200m'), ['a4']],
    ['registered_at within_last', c('registered_at', 'within_last', '30d'), ['a2', 'a4']],
    ['registered_at lt', c('registered_at', 'lt', new Date(Date.now() - 60 * 86_400_000).toISOString()), ['a1', 'a5']],
    ['registered_at lte', c('registered_at', 'lte', new Date(Date.now() - 60 * 86_400_000).toISOString()), ['a1', 'a5']],
    ['registered_at gt', c('registered_at', 'gt', new Date(Date.now() - 60 * 86_400_000).toISOString()), ['a2', 'a3', 'a4']],
    ['registered_at gte', c('registered_at', 'gte', new Date(Date.now() - 60 * 86_400_000).toISOString()), ['a2', 'a3', 'a4']],
    // and, or, not
    ['and', { and: [c('platform', 'eq', 'android'), c('app_version', 'gte', '4.2'), c('language', 'eq', 'fr')] }, ['a2']],
    ['or of tags', { or: [c('tags', 'contains', 'vip'), c('tags', 'contains', 'beta')] }, ['a1', 'a4']],
    ['not of a property: those without it too', { not: c('properties.plan', 'eq', 'pro') }, ['a2', 'a4', 'a5']],
    ['not of a nullable field: two-valued', { not: c('user_id', 'eq', 'u2') }, ['a1', 'a4', 'a5']],
    ['not of ne is not eq: a missing property matches neither', { not: c('properties.plan', 'ne', 'pro') }, ['a1', 'a3', 'a4']],
  ])('%s', async (_name, filter, expected) => {
    expect(await selected(filter)).toEqual(expected);
  });

  // `not` is compiled as comparisons where it is ANDed up to the top (so indexes apply) and as
  // IS NOT TRUE elsewhere: both must be the plain complement, missing values included.
  it('not is the plain complement of every comparison, at the top and inside an or', async () => {
    const all = await selected(c('platform', 'in', ['ios', 'android', 'web']));
    const never = c('user_id', 'eq', 'nobody');
    const conditions: FilterNode[] = [
      ...(['eq', 'ne', 'lt', 'lte', 'gt', 'gte'] as const).map((op) => c('app_version', op, '4.2')),
      c('app_version', 'exists'),
      c('app_version', 'not_exists'),
      ...(['eq', 'ne'] as const).map((op) => c('language', op, 'fr')),
      c('language', 'in', ['fr', 'de']),
      c('language', 'not_in', ['fr', 'de']),
      c('language', 'not_exists'),
      ...(['eq', 'ne'] as const).map((op) => c('user_id', op, 'u2')),
      c('user_id', 'not_in', ['u1', 'u3']),
      c('platform', 'ne', 'android'),
      c('permission', 'not_in', ['denied']),
      c('last_seen_at', 'within_last', '7d'),
      c('registered_at', 'gt', new Date(Date.now() - 30 * 86_400_000).toISOString()),
    ];
    for (const condition of conditions) {
      const matched = await selected(condition);
      const complement = all.filter((id) => !matched.includes(id));
      expect([condition, await selected({ not: condition })]).toEqual([condition, complement]);
      expect([condition, await selected({ and: [{ not: condition }, { not: never }] })]).toEqual([condition, complement]);
      expect([condition, await selected({ or: [{ not: condition }, never] })]).toEqual([condition, complement]);
      expect([condition, await selected({ not: { and: [condition, { not: never }] } })]).toEqual([condition, complement]);
    }
  });

  // The migrations write the indexed expressions out (a migration must not change with the code),
  // so a change to LANGUAGE_SQL or APP_VERSION_SQL that the index no longer matches would only
  // make filters slow: the plan must be able to use each index.
  it.each([
    ['installations_language_idx', c('language', 'eq', 'fr'), 'locale'],
    ['installations_app_version_idx', c('app_version', 'gte', '4.2'), 'app_version'],
  ])('a compiled condition can use %s', async (index, filter, key) => {
    const { sql, params } = compileFilter(filter, 2, new Date());
    const plan = await ctx.db.transaction(async (manager) => {
      await manager.query(`SET LOCAL enable_seqscan = off`);
      return manager.query<{ 'QUERY PLAN': string }[]>(`EXPLAIN SELECT 1 FROM installations i WHERE i.app_id = $1 AND ${sql}`, [tenant.appId, ...params]);
    });
    // The index's own column app_id alone would name it too: its condition must be on the device field.
    const lines = plan.map((line) => line['QUERY PLAN']);
    expect(lines.some((line) => line.includes(`using ${index} `))).toBe(true);
    expect(lines.some((line) => line.includes('Index Cond:') && line.includes(`'${key}'`))).toBe(true);
  });

  describe('POST /api/v1/audiences/count', () => {
    it('200 with installations, sendable, users and platforms; another app and deleted installations never counted', async () => {
      const res = await count({ recipients: { filter: c('properties.plan', 'exists') } });
      expect(res.status).toBe(200);
      // a1 ios, a2 a3 a5 android; a3 denied and a5 invalidated are not sendable; users u1 u2 u3.
      expect(res.body).toEqual({ data: { installations: 4, sendable: 2, users: 3, platforms: { ios: 1, android: 3, web: 0, huawei: 0 } } });
      const pro = await count({ recipients: { filter: c('properties.plan', 'eq', 'pro') } });
      expect(pro.body.data).toMatchObject({ installations: 2, platforms: { ios: 1, android: 1, web: 0, huawei: 0 } });
      const elsewhere = await count({ recipients: { filter: c('properties.plan', 'eq', 'pro') } }, other.token);
      expect(elsewhere.body.data).toEqual({ installations: 1, sendable: 1, users: 1, platforms: { ios: 1, android: 0, web: 0, huawei: 0 } });
    });

    it('counts every recipients kind as a send would consider it', async () => {
      const all = { installations: 5, sendable: 3, users: 3, platforms: { ios: 1, android: 3, web: 1, huawei: 0 } };
      expect((await count({ recipients: { all: true } })).body.data).toEqual(all);
      expect((await count({ recipients: { tags: ['vip', 'beta'] } })).body.data).toEqual({
        installations: 2,
        sendable: 2,
        users: 1,
        platforms: { ios: 1, android: 0, web: 1, huawei: 0 },
      });
      expect((await count({ recipients: { user_ids: ['u2', 'u2', 'nobody'] } })).body.data).toEqual({
        installations: 2,
        sendable: 1,
        users: 1,
        platforms: { ios: 0, android: 2, web: 0, huawei: 0 },
      });
      expect((await count({ recipients: { installation_ids: ['a4', 'a6', 'b1'] } })).body.data).toEqual({
        installations: 1,
        sendable: 1,
        users: 0,
        platforms: { ios: 0, android: 0, web: 1, huawei: 0 },
      });
      expect((await count({ recipients: { filter: c('user_id', 'eq', 'nobody') } })).body.data).toEqual({
        installations: 0,
        sendable: 0,
        users: 0,
        platforms: { ios: 0, android: 0, web: 0, huawei: 0 },
      });
    });

    it('422 at the path of the bad node; exactly one recipients kind', async () => {
      const res = await count({ recipients: { filter: { and: [c('platform', 'eq', 'ios'), c('platform', 'lt', 'ios')] } } });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({
        'recipients.filter.and.1.op': ['The recipients.filter.and.1.op field cannot be lt for platform: it takes eq, ne, in, not_in.'],
      });
      const deep = await count({ recipients: { filter: { not: { not: { not: { not: { not: c('tags', 'exists') } } } } } } });
      expect(deep.body.errors).toEqual({
        'recipients.filter.not.not.not.not.not': ['The recipients.filter.not.not.not.not.not field must not nest deeper than 5 levels.'],
      });
      const many = await count({ recipients: { filter: { and: [1, 2, 3].map(() => ({ or: Array.from({ length: 17 }, () => c('tags', 'exists')) })) } } });
      expect(many.body.errors).toEqual({ 'recipients.filter': ['The recipients.filter field must not have more than 50 conditions.'] });
      // Past the cost budget (3 × 75 on app_version): at the condition that passes 200, for a count as for a send.
      const costly = { recipients: { filter: { and: ['4.1', '4.2', '4.3'].map((v) => c('app_version', 'gt', v)) } } };
      const costlyErrors = {
        'recipients.filter.and.2': [
          expect.stringMatching(/^The recipients.filter.and.2 field passes the filter's cost budget: the filter costs 225, at most 200/),
        ],
      };
      expect((await count(costly)).body.errors).toEqual(costlyErrors);
      const send = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .send({ ...costly, notification: { title: 'Hi', body: 'There' } });
      expect(send.status).toBe(422);
      expect(send.body.errors).toEqual(costlyErrors);
      const both = await count({ recipients: { tags: ['beta'], filter: c('tags', 'exists') } });
      expect(both.body.errors).toEqual({
        recipients: [
          'Exactly one of recipients.user_ids, recipients.installation_ids, recipients.tags, recipients.filter, recipients.all or recipients.topic is required.',
        ],
      });
      expect((await count({})).body.errors).toEqual({
        recipients: ['The recipients field is required.'],
        'recipients.user_ids': ['The recipients.user_ids field is required.'],
      });
      expect((await count({ recipients: { all: true }, extra: 1 })).body.errors).toEqual({ extra: ['The extra field is not allowed.'] });
    });

    it('sendable leaves out token-less installations too', async () => {
      const third = await newApp(ctx, 'Tokens');
      for (const id of ['t1', 't2']) await newInstallation(ctx, third.token, { properties: { plan: 'pro' } }, id);
      await ctx.db.query(`UPDATE installations SET push_token = NULL WHERE app_id = $1 AND installation_id = 't2'`, [third.appId]);
      const res = await count({ recipients: { filter: c('properties.plan', 'eq', 'pro') } }, third.token);
      expect(res.body.data).toEqual({ installations: 2, sendable: 1, users: 0, platforms: { ios: 2, android: 0, web: 0, huawei: 0 } });
    });

    it('needs notifications:send', async () => {
      const reader = await newToken(ctx, tenant.appId, ['notifications:read', 'installations:read']);
      const res = await count({ recipients: { all: true } }, reader);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'This action is unauthorized.' });
      expect(
        (
          await ctx
            .http()
            .post('/api/v1/audiences/count')
            .send({ recipients: { all: true } })
        ).status,
      ).toBe(401);
      const sender = await newToken(ctx, tenant.appId, ['notifications:send']);
      expect((await count({ recipients: { all: true } }, sender)).status).toBe(200);
    });
  });
});
