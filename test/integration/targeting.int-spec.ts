import { AppsRepository } from '../../src/apps/apps.repository';
import { ChunkParams, FanOutRepository } from '../../src/delivery/fan-out/fan-out.repository';
import { chunkStatement } from '../../src/delivery/fan-out/chunk-statement';
import { apnsToken, bearer, newApp, newInstallation, TestTenant } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { configureProviders, seedInstallations } from '../support/providers';
import { waitForQueues } from '../support/wait-for-queues';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';

const EXACTLY_ONE =
  'Exactly one of recipients.user_ids, recipients.installation_ids, recipients.tags, recipients.filter, recipients.all or recipients.topic is required.';

/** Recipients and installation tags (docs/api.md#recipients), through API, fan-out and delivery in one process. */
describe('targeting (docs/api.md#recipients)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx, 'Targeting');
    other = await newApp(ctx, 'Another app');
    await configureProviders(ctx, tenant.appId, stack.fakes);
    await configureProviders(ctx, other.appId, stack.fakes);
  });

  const send = (body: Record<string, unknown>, token = tenant.token) =>
    ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(token))
      .send({ notification: { title: 'Hello', body: 'World' }, ...body });
  const completed = (id: string, token = tenant.token) => notificationCompleted(ctx, token, id);
  const ios = async (token: string, body: Record<string, unknown> = {}): Promise<Record<string, any>> => {
    const push_token = apnsToken();
    const installation = await newInstallation(ctx, token, { platform: 'ios', push_token, ...body });
    return { ...installation, push_token };
  };
  const apnsAccepted = (pushToken: string) => stack.fakes.apns.requests.filter((r) => r.token === pushToken && r.status === 200).length;
  const put = (id: string, body: Record<string, unknown>) => ctx.http().put(`/api/v1/installations/${id}`).set(bearer(tenant.token)).send(body);
  const patch = (id: string, body: Record<string, unknown>) => ctx.http().patch(`/api/v1/installations/${id}`).set(bearer(tenant.token)).send(body);

  describe('installation tags', () => {
    it('PUT and PATCH replace the whole set, stored sorted without duplicates; [] when none', async () => {
      const created = await put('tagged-1', { platform: 'ios', push_token: apnsToken(), tags: ['vip', 'beta', 'vip', 'plan:pro'] }).expect(201);
      expect(created.body.data.tags).toEqual(['beta', 'plan:pro', 'vip']);
      const untagged = await put('tagged-2', { platform: 'ios', push_token: apnsToken() }).expect(201);
      expect(untagged.body.data.tags).toEqual([]);

      // A refresh without tags keeps them; with tags, replaces them.
      expect((await put('tagged-1', { permission: 'granted' }).expect(200)).body.data.tags).toEqual(['beta', 'plan:pro', 'vip']);
      expect((await put('tagged-1', { tags: ['a.b', 'A-b_c'] }).expect(200)).body.data.tags).toEqual(['A-b_c', 'a.b']);
      expect((await patch('tagged-1', { tags: ['z', 'y'] }).expect(200)).body.data.tags).toEqual(['y', 'z']);
      expect((await patch('tagged-1', { user_id: 'u' }).expect(200)).body.data.tags).toEqual(['y', 'z']);
      expect((await patch('tagged-1', { tags: [] }).expect(200)).body.data.tags).toEqual([]);
      const got = await ctx.http().get('/api/v1/installations/tagged-1').set(bearer(tenant.token)).expect(200);
      expect(got.body.data.tags).toEqual([]);
      // 100 tags of 64 characters are the bounds.
      const hundred = Array.from({ length: 100 }, (_, i) => `${String(i).padStart(3, '0')}${'t'.repeat(61)}`);
      expect((await patch('tagged-2', { tags: hundred }).expect(200)).body.data.tags).toEqual(hundred);
    });

    it.each<[string, unknown, string, string]>([
      ['not an array', 'beta', 'tags', 'The tags field must be an array.'],
      ['null', null, 'tags', 'The tags field must be an array.'],
      ['101 tags', Array.from({ length: 101 }, (_, i) => `t${i}`), 'tags', 'The tags field must not have more than 100 items.'],
      ['an empty tag', ['ok', ''], 'tags.1', 'The tags.1 field must not be empty.'],
      ['a 65-character tag', ['t'.repeat(65)], 'tags.0', 'The tags.0 field must not be greater than 64 characters.'],
      ['a space', ['two words'], 'tags.0', 'The tags.0 field may contain only letters, digits, _ . : and -.'],
      ['a slash', ['a/b'], 'tags.0', 'The tags.0 field may contain only letters, digits, _ . : and -.'],
      ['a non-string', [7], 'tags.0', 'The tags.0 field must be a string.'],
    ])('422 for tags that are %s, on PUT and PATCH', async (_name, tags, field, message) => {
      for (const res of [await put('tag-rules', { platform: 'ios', push_token: apnsToken(), tags }), await patch('tagged-2', { tags })]) {
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual({ [field]: [message] });
      }
    });
  });

  describe('recipients validation', () => {
    it('a missing recipients object names recipients and recipients.user_ids', async () => {
      const res = await send({});
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({
        recipients: ['The recipients field is required.'],
        'recipients.user_ids': ['The recipients.user_ids field is required.'],
      });
      expect(res.body.message).toBe('The recipients field is required. (and 1 more error)');
    });

    it.each<[string, Record<string, unknown>]>([
      ['none', {}],
      ['two', { user_ids: ['u1'], all: true }],
      ['three', { user_ids: ['u1'], installation_ids: ['i1'], tags: ['t'] }],
    ])('422 on recipients when %s of the keys are given', async (_name, recipients) => {
      const res = await send({ recipients });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ recipients: [EXACTLY_ONE] });
      expect(res.body.message).toBe(EXACTLY_ONE);
    });

    const tooMany = Array.from({ length: 10_001 }, (_, i) => `i${i}`);
    it.each<[string, Record<string, unknown>, string, string]>([
      ['installation_ids not an array', { installation_ids: 'i1' }, 'recipients.installation_ids', 'The recipients.installation_ids field must be an array.'],
      ['empty installation_ids', { installation_ids: [] }, 'recipients.installation_ids', 'The recipients.installation_ids field must have at least 1 item.'],
      [
        '10,001 installation_ids',
        { installation_ids: tooMany },
        'recipients.installation_ids',
        'The recipients.installation_ids field must not have more than 10000 items.',
      ],
      [
        'an empty installation id',
        { installation_ids: ['i1', ''] },
        'recipients.installation_ids.1',
        'The recipients.installation_ids.1 field must not be empty.',
      ],
      [
        'a 256-char installation id',
        { installation_ids: ['i'.repeat(256)] },
        'recipients.installation_ids.0',
        'The recipients.installation_ids.0 field must not be greater than 255 characters.',
      ],
      ['null installation_ids', { installation_ids: null }, 'recipients.installation_ids', 'The recipients.installation_ids field must be an array.'],
      ['empty tags', { tags: [] }, 'recipients.tags', 'The recipients.tags field must have at least 1 item.'],
      ['11 tags', { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'recipients.tags', 'The recipients.tags field must not have more than 10 items.'],
      ['a bad tag', { tags: ['ok', 'no way'] }, 'recipients.tags.1', 'The recipients.tags.1 field may contain only letters, digits, _ . : and -.'],
      ['a 65-char tag', { tags: ['t'.repeat(65)] }, 'recipients.tags.0', 'The recipients.tags.0 field must not be greater than 64 characters.'],
      ['all false', { all: false }, 'recipients.all', 'The recipients.all field must be true.'],
      ['all "true"', { all: 'true' }, 'recipients.all', 'The recipients.all field must be true.'],
      ['all null', { all: null }, 'recipients.all', 'The recipients.all field must be true.'],
      ['filter null', { filter: null }, 'recipients.filter', 'The recipients.filter field must be an object.'],
      [
        'a filter op that cannot apply',
        {
          filter: {
            and: [
              { field: 'platform', op: 'eq', value: 'ios' },
              { field: 'platform', op: 'lt', value: 'ios' },
            ],
          },
        },
        'recipients.filter.and.1.op',
        'The recipients.filter.and.1.op field cannot be lt for platform: it takes eq, ne, in, not_in.',
      ],
    ])('422 for %s', async (_name, recipients, field, message) => {
      const res = await send({ recipients });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ [field]: [message] });
    });
  });

  it('tags reach the installations of the app carrying any of them, never another app’s with the same tag', async () => {
    const beta = await ios(tenant.token, { user_id: 'ann', tags: ['beta', 'x'] });
    const gamma = await ios(tenant.token, { user_id: 'ann', tags: ['gamma'] });
    const both = await ios(tenant.token, { user_id: 'ben', tags: ['beta', 'gamma'] });
    const anonymous = await ios(tenant.token, { tags: ['gamma'] });
    const untagged = await ios(tenant.token, { user_id: 'cid', tags: ['delta'] });
    const foreign = await ios(other.token, { user_id: 'ann', tags: ['beta', 'gamma'] });

    const res = await send({ recipients: { tags: ['beta', 'gamma', 'beta'] } });
    expect(res.status).toBe(202);
    // Users are known once the fan-out has found the installations.
    expect(res.body.data.target_users).toBe(0);
    const done = await completed(res.body.data.id);
    expect(done.target_users).toBe(2);
    expect(done.statistics).toMatchObject({ users: 2, installations: 4, accepted: 4, skipped: 0, failed: 0 });
    await waitForQueues(ctx);
    for (const i of [beta, gamma, both, anonymous]) expect(apnsAccepted(i.push_token)).toBe(1);
    expect(apnsAccepted(untagged.push_token)).toBe(0);
    expect(apnsAccepted(foreign.push_token)).toBe(0);
  });

  it('installation_ids reach those installations of the app; unknown ids, duplicates and another app’s are ignored', async () => {
    const a = await ios(tenant.token, { user_id: 'dan' });
    const b = await ios(tenant.token);
    const foreign = await ios(other.token);
    const res = await send({
      recipients: { installation_ids: [a.installation_id, 'no-such-installation', b.installation_id, a.installation_id, foreign.installation_id] },
    });
    expect(res.status).toBe(202);
    const done = await completed(res.body.data.id);
    expect(done.target_users).toBe(1);
    expect(done.statistics).toMatchObject({ users: 1, installations: 2, accepted: 2 });
    await waitForQueues(ctx);
    expect([apnsAccepted(a.push_token), apnsAccepted(b.push_token), apnsAccepted(foreign.push_token)]).toEqual([1, 1, 0]);
  });

  it('all reaches every live installation of the app and none of another', async () => {
    const app = await newApp(ctx, 'Broadcast');
    await configureProviders(ctx, app.appId, stack.fakes);
    const mine = [
      await ios(app.token, { user_id: 'u1' }),
      await ios(app.token, { user_id: 'u1' }),
      await ios(app.token, { user_id: 'u2' }),
      await ios(app.token),
    ];
    const denied = await ios(app.token, { user_id: 'u3', permission: 'denied' });
    const deleted = await ios(app.token, { user_id: 'u4' });
    await ctx.http().delete(`/api/v1/installations/${deleted.installation_id}`).set(bearer(app.token)).expect(204);
    const foreign = await ios(tenant.token, { user_id: 'u1' });

    const res = await send({ recipients: { all: true } }, app.token);
    expect(res.status).toBe(202);
    const done = await completed(res.body.data.id, app.token);
    // u1, u2, u3 (denied, but an installation the fan-out found); the deleted one is not a target.
    expect(done.target_users).toBe(3);
    expect(done.statistics).toMatchObject({ users: 3, installations: 5, accepted: 4, skipped: 1, failed: 0 });
    await waitForQueues(ctx);
    for (const i of mine) expect(apnsAccepted(i.push_token)).toBe(1);
    expect(apnsAccepted(denied.push_token)).toBe(0);
    expect(apnsAccepted(deleted.push_token)).toBe(0);
    expect(apnsAccepted(foreign.push_token)).toBe(0);
  });

  it('filter reaches the installations of the app that match, never another app’s that match too (docs/api.md#audience-filters)', async () => {
    const properties = { plan: 'pro' };
    const match = await ios(tenant.token, { user_id: 'fil', properties, device: { app_version: '4.2', locale: 'fr_FR' } });
    const newer = await ios(tenant.token, { properties, device: { app_version: '4.10', locale: 'fr' } });
    const older = await ios(tenant.token, { user_id: 'fil2', properties, device: { app_version: '4.1', locale: 'fr' } });
    const english = await ios(tenant.token, { user_id: 'fil3', properties, device: { app_version: '5', locale: 'en' } });
    const free = await ios(tenant.token, { user_id: 'fil4', properties: { plan: 'free' }, device: { app_version: '5', locale: 'fr' } });
    const foreign = await ios(other.token, { user_id: 'fil', properties, device: { app_version: '5', locale: 'fr' } });
    const filter = {
      and: [
        { field: 'properties.plan', op: 'eq', value: 'pro' },
        { field: 'app_version', op: 'gte', value: '4.2' },
        { field: 'language', op: 'eq', value: 'fr' },
      ],
    };
    const counted = await ctx.http().post('/api/v1/audiences/count').set(bearer(tenant.token)).send({ recipients: { filter } }).expect(200);
    expect(counted.body.data).toEqual({ installations: 2, sendable: 2, users: 1, platforms: { ios: 2, android: 0, web: 0, huawei: 0 } });
    const res = await send({ recipients: { filter } });
    expect(res.status).toBe(202);
    const done = await completed(res.body.data.id);
    expect(done.target_users).toBe(1);
    expect(done.statistics).toMatchObject({ users: 1, installations: 2, accepted: 2, skipped: 0, failed: 0 });
    await waitForQueues(ctx);
    expect([match, newer, older, english, free, foreign].map((i) => apnsAccepted(i.push_token))).toEqual([1, 1, 0, 0, 0, 0]);
    const [stored] = await ctx.db.query(`SELECT recipient_kind, recipient_filter FROM notifications WHERE id = $1`, [res.body.data.id]);
    expect(stored).toEqual({ recipient_kind: 'filter', recipient_filter: filter });
  });

  it('walks a broadcast and a tag send over several chunks, each installation once', async () => {
    // An app without credentials: every row is skipped (NoCredentials), so only the fan-out runs.
    const app = await newApp(ctx, 'Many');
    await seedInstallations(ctx, app.appId, stack.fakes, 12_001, 'many');
    await ctx.db.query(`UPDATE installations SET tags = '{odd}' WHERE app_id = $1 AND right(user_id, 1) IN ('1', '3', '5', '7', '9')`, [app.appId]);
    const all = await send({ recipients: { all: true } }, app.token);
    const odd = await send({ recipients: { tags: ['odd'] } }, app.token);
    // A filter send walks the same way (flat worker memory): the odd ones that are not user many-...1.
    const filtered = await send(
      { recipients: { filter: { and: [{ field: 'tags', op: 'contains', value: 'odd' }, { not: { field: 'user_id', op: 'in', value: ['many-1'] } }] } } },
      app.token,
    );
    const [allDone, oddDone] = [await completed(all.body.data.id, app.token), await completed(odd.body.data.id, app.token)];
    const filteredDone = await completed(filtered.body.data.id, app.token);
    expect(allDone.statistics).toMatchObject({ users: 12_001, installations: 12_001, skipped: 12_001 });
    expect(allDone.target_users).toBe(12_001);
    expect(oddDone.statistics).toMatchObject({ users: 6_000, installations: 6_000, skipped: 6_000 });
    expect(filteredDone.statistics).toMatchObject({ users: 5_999, installations: 5_999, skipped: 5_999 });
    const [counts] = await ctx.db.query(
      `SELECT count(*)::int AS rows, count(DISTINCT installation_id)::int AS installations FROM deliveries WHERE notification_id = $1`,
      [all.body.data.id],
    );
    expect(counts).toEqual({ rows: 12_001, installations: 12_001 });
  });

  /** A filter send as its fan-out job finds it: stored and started, nothing fanned out yet; its id. */
  const startedFilterSend = async (appId: string, filter: object): Promise<string> =>
    (
      await ctx.db.query<{ id: string }[]>(
        `INSERT INTO notifications (app_id, title, body, user_ids, target_users, recipient_kind, recipient_filter, processing_started_at)
         VALUES ($1, 'Hello', 'World', '{}', 0, 'filter', $2, now()) RETURNING id`,
        [appId, JSON.stringify(filter)],
      )
    )[0].id;
  /** The worker's chunk parameters with chunks of 10 (of 5,000 in the service), to every platform. */
  const chunksOfTen = (appId: string): ChunkParams => ({
    appId,
    chunkSize: 10,
    batchSize: 5,
    wanted: ['ios', 'android', 'web'],
    configured: ['apns', 'fcm', 'web_push'],
    silentless: [],
    fixedDue: null,
    cap: null,
    paceMs: null,
    topic: null,
    marketing: false,
    audienceTimeoutMs: 10_000,
  });

  it("stages a filter send's audience once, when its fan-out begins, and takes it chunk by chunk", async () => {
    // The worker's own chunk statements with chunks of 10, over an app of 1,000 installations.
    const app = await newApp(ctx, 'Staged');
    const seeded = await seedInstallations(ctx, app.appId, stack.fakes, 1_000, 'stage');
    // Matches: every 37th installation and all 60 of stage-500 to stage-559.
    const pro = seeded.map((s, n) => (n % 37 === 0 || (n >= 500 && n < 560) ? s.userId : null)).filter((u) => u !== null);
    await ctx.db.query(`UPDATE installations SET properties = '{"plan": "pro"}' WHERE app_id = $1 AND user_id = ANY($2::text[])`, [app.appId, pro]);
    // Not in the audience: a deleted match, and another app's.
    await ctx.db.query(`UPDATE installations SET deleted_at = now() WHERE app_id = $1 AND user_id = 'stage-37'`, [app.appId]);
    await seedInstallations(ctx, tenant.appId, stack.fakes, 1, 'stage-other');
    await ctx.db.query(`UPDATE installations SET properties = '{"plan": "pro"}' WHERE app_id = $1 AND user_id = 'stage-other-0'`, [tenant.appId]);
    const audience = pro.filter((u) => u !== 'stage-37');

    const id = await startedFilterSend(app.appId, { field: 'properties.plan', op: 'eq', value: 'pro' });
    const chunkParams = chunksOfTen(app.appId);
    const state = async () =>
      (
        await ctx.db.query(
          `SELECT n.fanout_audience_chunks AS chunks, n.fanout_position AS position, n.fanned_out_at IS NOT NULL AS done,
             (SELECT COALESCE(sum(cardinality(a.installation_ids)), 0)::int FROM fanout_audiences a WHERE a.notification_id = n.id) AS staged
           FROM notifications n WHERE n.id = $1`,
          [id],
        )
      )[0] as { chunks: number; position: number; done: boolean; staged: number };

    // A new repository each time: all the fan-out's state is in the database, as after a worker restart.
    const first = await new FanOutRepository(ctx.db).nextChunk(id, chunkParams);
    expect(first).toMatchObject({ installations: 10, finished: false });
    // The audience as the first chunk found it, in chunks of 10, less the first, which it wrote.
    const chunks = Math.ceil(audience.length / 10);
    expect(await state()).toEqual({ chunks, position: 1, done: false, staged: audience.length - 10 });

    // After the start: a new match is not added; a staged one deleted before its chunk is not sent;
    // one that stopped matching is still sent (the audience is the one at the start).
    const written = async () =>
      (
        await ctx.db.query<{ user_id: string }[]>(
          `SELECT i.user_id FROM deliveries d JOIN installations i ON i.id = d.installation_id WHERE d.notification_id = $1`,
          [id],
        )
      ).map((r) => r.user_id);
    const firstTen = new Set(await written());
    const [deletedLater, changedLater] = audience.filter((u) => !firstTen.has(u)).slice(-2);
    await ctx.db.query(`UPDATE installations SET properties = '{"plan": "pro"}' WHERE app_id = $1 AND user_id = 'stage-1'`, [app.appId]);
    await ctx.db.query(`UPDATE installations SET deleted_at = now() WHERE app_id = $1 AND user_id = $2`, [app.appId, deletedLater]);
    await ctx.db.query(`UPDATE installations SET properties = '{"plan": "free"}' WHERE app_id = $1 AND user_id = $2`, [app.appId, changedLater]);

    let taken = 1;
    let total = first!.installations;
    for (;;) {
      const chunk = await new FanOutRepository(ctx.db).nextChunk(id, chunkParams);
      if (!chunk) break;
      taken++;
      expect(chunk.installations).toBeLessThanOrEqual(10);
      total += chunk.installations;
      // The last chunk finishes the fan-out in its own transaction: the next call finds nothing to do.
      if (chunk.finished) expect(await new FanOutRepository(ctx.db).nextChunk(id, chunkParams)).toBeNull();
    }
    expect(taken).toBe(chunks);
    const sent = audience.filter((u) => u !== deletedLater);
    expect(total).toBe(sent.length);
    expect((await written()).sort()).toEqual([...sent].sort());
    // Every staged chunk deleted as it was written.
    expect(await state()).toEqual({ chunks, position: chunks, done: true, staged: 0 });
    const [done] = await ctx.db.query(`SELECT stat_installations, target_users FROM notifications WHERE id = $1`, [id]);
    expect(done).toEqual({ stat_installations: sent.length, target_users: sent.length });
  });

  it('writes and counts an installation once when its user changes between two chunks of user ids (the chunk runs again, skipping it)', async () => {
    const app = await newApp(ctx, 'Moved');
    const seeded = await seedInstallations(ctx, app.appId, stack.fakes, 20, 'moved');
    const users = seeded.map((s) => s.userId);
    const [{ id }] = await ctx.db.query<{ id: string }[]>(
      `INSERT INTO notifications (app_id, title, body, user_ids, target_users, recipient_kind, processing_started_at)
       VALUES ($1, 'Hello', 'World', $2, $3, 'user_ids', now()) RETURNING id`,
      [app.appId, users, users.length],
    );
    const params = chunksOfTen(app.appId);
    expect(await new FanOutRepository(ctx.db).nextChunk(id, params)).toMatchObject({ installations: 10, finished: false });
    // The first chunk's first installation now belongs to a user of the second chunk, which finds it again.
    await ctx.db.query(`UPDATE installations SET user_id = $3 WHERE app_id = $1 AND user_id = $2`, [app.appId, users[0], users[15]]);
    expect(await new FanOutRepository(ctx.db).nextChunk(id, params)).toMatchObject({ installations: 10 });
    expect(await new FanOutRepository(ctx.db).nextChunk(id, params)).toBeNull();
    const [counts] = await ctx.db.query(
      `SELECT count(*)::int AS rows, count(DISTINCT installation_id)::int AS installations FROM deliveries WHERE notification_id = $1`,
      [id],
    );
    expect(counts).toEqual({ rows: 20, installations: 20 });
    const [{ stat_installations }] = await ctx.db.query(`SELECT stat_installations FROM notifications WHERE id = $1`, [id]);
    expect(stat_installations).toBe(20);

    // The clause is only in the statement a chunk runs again (docs/decisions/0013-fan-out-chunks-insert-without-on-conflict.md).
    const clause = 'ON CONFLICT (notification_id, installation_id, notification_started_at) DO NOTHING';
    expect(chunkStatement({ kind: 'all', relisted: false, stores: null }).text).not.toContain(clause);
    expect(chunkStatement({ kind: 'all', relisted: true, stores: null }).text).toContain(clause);
  });

  it("deletes a filter send's staged audience with its app", async () => {
    const app = await newApp(ctx, 'Doomed');
    await seedInstallations(ctx, app.appId, stack.fakes, 30, 'doomed', 'ios');
    const id = await startedFilterSend(app.appId, { field: 'platform', op: 'eq', value: 'ios' });
    await new FanOutRepository(ctx.db).nextChunk(id, chunksOfTen(app.appId));
    const staged = async () => (await ctx.db.query(`SELECT count(*)::int AS n FROM fanout_audiences WHERE notification_id = $1`, [id]))[0].n;
    expect(await staged()).toBe(2);
    await new AppsRepository(ctx.db).delete(app.appId);
    expect(await staged()).toBe(0);
  });

  it('finishes a filter send that selects nobody in its first chunk, staging nothing', async () => {
    const id = await startedFilterSend(tenant.appId, { field: 'properties.plan', op: 'eq', value: 'nobody-has-this' });
    expect(await new FanOutRepository(ctx.db).nextChunk(id, chunksOfTen(tenant.appId))).toBeNull();
    const [row] = await ctx.db.query(`SELECT fanned_out_at IS NOT NULL AS done, stat_installations, target_users FROM notifications WHERE id = $1`, [id]);
    expect(row).toEqual({ done: true, stat_installations: 0, target_users: 0 });
  });
});
