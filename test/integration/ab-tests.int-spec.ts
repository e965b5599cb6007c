import { AbTestsService } from '../../src/delivery/ab-tests/ab-tests.service';
import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { inSample, inSampleSql, subjectOf, variantOf, variantSql, variantThresholds } from '../../src/common/variants';
import { apnsToken, bearer, newToken } from '../support/factories';
import { newInstallation } from '../support/factories';
import { notificationCompleted, readNotification, traceByInstallation } from '../support/notifications';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';
import { testQueue } from '../support/wait-for-queues';
import { abDecisionJobId, MAINTENANCE_QUEUE } from '../../src/common/queues';

/** Contract 26 (docs/api.md#variants, docs/api.md#a-b-test-with-a-winner): variants, the sample, the decision, the rest. */
describe('variants and A/B tests', () => {
  // The webhook receiver listens on loopback (docs/api.md#managing-webhooks).
  const stack = useAppWithFakeProviders({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Variants');
  const receiver = new WebhookReceiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  const send = (body: Record<string, unknown>) => ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).send(body);
  const variants = [
    { key: 'short', weight: 50, notification: { title: 'Sale', body: 'Now' } },
    { key: 'long', weight: 50, notification: { title: 'Our big sale', body: 'Starts now, for a week' } },
  ];
  const titleOf = (key: string) => variants.find((v) => v.key === key)!.notification.title;

  /** `count` users of `prefix`, one iOS installation each, and the user `<prefix>-twin` with two. */
  const audience = async (prefix: string, count: number) => {
    const devices: { user: string; installation: string; token: string }[] = [];
    const add = async (user: string) => {
      const token = apnsToken();
      const installation = await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: token, user_id: user });
      devices.push({ user, installation: installation.installation_id, token });
    };
    for (let i = 0; i < count; i++) await add(`${prefix}-${i}`);
    await add(`${prefix}-twin`);
    await add(`${prefix}-twin`);
    return devices;
  };
  const titlesSent = (token: string) =>
    stack.fakes.apns.requests.filter((r) => r.token === token && r.status === 200).map((r) => (r.payload as any).aps.alert.title as string);
  const rows = (id: string): Promise<{ installation_id: string; user_id: string; status: string; reason: string | null; variant: number | null }[]> =>
    ctx.db.query(
      `SELECT i.installation_id, d.user_id, d.status, d.reason, d.variant FROM deliveries d JOIN installations i ON i.id = d.installation_id
       WHERE d.notification_id = $1`,
      [id],
    );

  describe('validation (422 at the path)', () => {
    it.each<[string, Record<string, unknown>, Record<string, string[]>]>([
      [
        'variants with notification',
        { notification: { title: 'a', body: 'b' }, variants },
        { variants: ['The variants field must not be given together with notification or template.'] },
      ],
      ['a key twice', { variants: [variants[0], { ...variants[1], key: 'short' }] }, { variants: ['The variants field must not name a variant key twice.'] }],
      ['one variant', { variants: [variants[0]] }, { variants: ['The variants field must have at least 2 items.'] }],
      [
        'a variant with neither',
        { variants: [variants[0], { key: 'b', weight: 1 }] },
        { 'variants.1.notification': ['Each variant needs exactly one of notification or template.'] },
      ],
      [
        'a variant with both',
        { variants: [variants[0], { ...variants[1], template: { key: 'x' } }] },
        { 'variants.1.template': ['The variants.1.template field must not be given together with notification.'] },
      ],
      [
        'a bad key',
        { variants: [variants[0], { ...variants[1], key: 'Long' }] },
        { 'variants.1.key': ['The variants.1.key field may contain only a-z, 0-9 and _.'] },
      ],
      [
        'a weight of 0',
        { variants: [variants[0], { ...variants[1], weight: 0 }] },
        { 'variants.1.weight': ['The variants.1.weight field must be at least 1.'] },
      ],
      [
        'ab_test without variants',
        { notification: { title: 'a', body: 'b' }, options: { ab_test: { sample_percent: 10, winner_after: '1h', metric: 'opened' } } },
        { 'options.ab_test': ['The options.ab_test field requires variants.'] },
      ],
      [
        'ab_test with local_time',
        { variants, options: { local_time: '09:00', ab_test: { sample_percent: 10, winner_after: '1h', metric: 'opened' } } },
        { 'options.ab_test': ['The options.ab_test field must not be given together with options.local_time.'] },
      ],
      [
        'winner_after under 5 minutes',
        { variants, options: { ab_test: { sample_percent: 10, winner_after: '4m', metric: 'opened' } } },
        {
          'options.ab_test.winner_after': [
            'The options.ab_test.winner_after field must be a duration of minutes or hours (such as 30m or 4h), from 5 minutes to 72 hours.',
          ],
        },
      ],
      [
        'variants to the inbox',
        { variants, options: { channels: ['push', 'inbox'] } },
        { variants: ['The variants field must not be given together with the inbox channel.'] },
      ],
    ])('%s', async (_name, body, errors) => {
      const res = await send({ recipients: { user_ids: ['u'] }, ...body });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual(errors);
    });
  });

  it('assigns in SQL exactly as the TypeScript rule does, on 100,000 subjects', async () => {
    const id = '6f1f8a52-3c1e-4a0b-9d55-0d8f3b2a7c11';
    const weights = [10, 20, 30, 40];
    const found: { user_id: string | null; installation_id: string; variant: number; sampled: boolean }[] = await ctx.db.query(
      `SELECT c.user_id, c.installation_id, ${variantSql('$1::text', 'c.user_id', 'c.installation_id', '$2::int', '$3::int[]')} AS variant,
         ${inSampleSql('$1::text', 'c.user_id', 'c.installation_id', '$4::int')} AS sampled
       FROM (SELECT CASE WHEN g % 3 = 0 THEN NULL ELSE 'user-' || g END AS user_id, 'inst-' || g AS installation_id FROM generate_series(1, 100000) g) c`,
      [id, 100, variantThresholds(weights), 20],
    );
    expect(found).toHaveLength(100_000);
    const mismatches = found.filter(
      (r) =>
        r.variant !== variantOf(id, subjectOf(r.user_id, r.installation_id), weights) ||
        r.sampled !== inSample(id, subjectOf(r.user_id, r.installation_id), 20),
    );
    expect(mismatches).toEqual([]);
  });

  it('sends each user one variant (the same on each device), and shows variants in the Notification and the trace', async () => {
    const devices = await audience('v', 30);
    const res = await send({ recipients: { user_ids: [...new Set(devices.map((d) => d.user))] }, variants });
    expect(res.status).toBe(202);
    const id = res.body.data.id;
    expect(res.body.data.variants).toEqual([
      { key: 'short', weight: 50, statistics: expect.objectContaining({ installations: 0 }) },
      { key: 'long', weight: 50, statistics: expect.objectContaining({ installations: 0 }) },
    ]);
    expect(res.body.data.ab_test).toBeNull();
    const done = await notificationCompleted(ctx, tenant.token, id);

    const weights = variants.map((v) => v.weight);
    for (const row of await rows(id)) expect(row.variant).toBe(variantOf(id, subjectOf(row.user_id, row.installation_id), weights));
    const trace = await traceByInstallation(ctx, tenant.token, id);
    for (const device of devices) {
      const key = variants[variantOf(id, subjectOf(device.user, device.installation), weights)].key;
      expect(trace[device.installation].variant).toBe(key);
      expect(titlesSent(device.token)).toEqual([titleOf(key)]);
    }
    const twins = devices.filter((d) => d.user === 'v-twin');
    expect(trace[twins[0].installation].variant).toBe(trace[twins[1].installation].variant);

    const counts = [0, 1].map((index) => devices.filter((d) => variantOf(id, subjectOf(d.user, d.installation), weights) === index).length);
    expect(done.variants.map((v: any) => v.statistics.installations)).toEqual(counts);
    expect(done.variants.map((v: any) => v.statistics.accepted)).toEqual(counts);
    expect(done.statistics.accepted).toBe(devices.length);

    // An opened event counts for its delivery's variant.
    const opener = devices[0];
    await ctx
      .http()
      .post(`/api/v1/notifications/${id}/events`)
      .set(bearer(tenant.token))
      .send({ installation_id: opener.installation, type: 'opened' })
      .expect(202);
    const after = await readNotification(ctx, tenant.token, id);
    const openerVariant = variantOf(id, subjectOf(opener.user, opener.installation), weights);
    expect(after.variants[openerVariant].statistics.opened).toBe(1);
    expect(after.variants[1 - openerVariant].statistics.opened).toBe(0);
  });

  it('takes a variant from a template, rendered per installation', async () => {
    const writer = await newToken(ctx, tenant.appId, ['templates:write']);
    await ctx
      .http()
      .put('/api/v1/templates/greeting')
      .set(bearer(writer))
      .send({ name: 'Greeting', notification: { title: 'Hi {{ vars.name }}', body: 'From the template' }, localizations: null, data: null })
      .expect(201);
    const devices = await audience('tpl', 10);
    const res = await send({
      recipients: { user_ids: [...new Set(devices.map((d) => d.user))] },
      variants: [variants[0], { key: 'tpl', weight: 50, template: { key: 'greeting', variables: { name: 'Ann' } } }],
    });
    expect(res.status).toBe(202);
    const id = res.body.data.id;
    await notificationCompleted(ctx, tenant.token, id);
    for (const d of devices) {
      const index = variantOf(id, subjectOf(d.user, d.installation), [50, 50]);
      expect(titlesSent(d.token)).toEqual([index === 0 ? 'Sale' : 'Hi Ann']);
    }
  });

  describe('the A/B test', () => {
    const abTest = { sample_percent: 30, winner_after: '5m', metric: 'opened' };
    const weights = variants.map((v) => v.weight);
    const sampleDone = (id: string) =>
      waitFor(async () => {
        const [n] = await ctx.db.query(`SELECT fanned_out_at FROM notifications WHERE id = $1`, [id]);
        const still = (await rows(id)).filter((r) => r.variant !== null && ['pending', 'sending'].includes(r.status));
        return n.fanned_out_at && still.length === 0 ? true : null;
      }, `the sample of ${id} to be sent`);
    const decider = () => ctx.get(AbTestsService);
    /** A time past the decision's due time: the decider takes `now`, no test waits. */
    const later = () => new Date(Date.now() + 6 * 60_000);

    it('sends the sample split by weight, decides once for the highest metric, and sends the winner to everyone else once', async () => {
      await ctx.get(WebhooksService).create(tenant.appId, receiver.url('/hooks/ab'), 'notification.ab_test_decided');
      const devices = await audience('ab', 60);
      const res = await send({ recipients: { user_ids: [...new Set(devices.map((d) => d.user))] }, variants, options: { ab_test: abTest } });
      expect(res.status).toBe(202);
      const id = res.body.data.id;
      expect(res.body.data.ab_test).toEqual({ phase: 'sample', winner: null, decided_at: null });
      await sampleDone(id);

      const sampled = devices.filter((d) => inSample(id, subjectOf(d.user, d.installation), 30));
      const rest = devices.filter((d) => !sampled.includes(d));
      expect(sampled.length).toBeGreaterThan(0);
      expect(rest.length).toBeGreaterThan(0);
      const stored = new Map((await rows(id)).map((r) => [r.installation_id, r]));
      for (const d of sampled) {
        expect(stored.get(d.installation)!.variant).toBe(variantOf(id, subjectOf(d.user, d.installation), weights));
        expect(titlesSent(d.token)).toHaveLength(1);
      }
      for (const d of rest) {
        expect(stored.get(d.installation)).toMatchObject({ status: 'scheduled', variant: null });
        expect(titlesSent(d.token)).toEqual([]);
      }
      const inSampling = await readNotification(ctx, tenant.token, id);
      expect(inSampling.completed_at).toBeNull();
      expect(inSampling.ab_test.phase).toBe('sample');

      // Not due yet: nothing decided.
      expect(await decider().decideDue(new Date())).toEqual([]);
      // The variant opened more per accepted message wins: one opened in "long", none in "short".
      const opener = sampled.find((d) => variantOf(id, subjectOf(d.user, d.installation), weights) === 1);
      if (opener) {
        await ctx
          .http()
          .post(`/api/v1/notifications/${id}/events`)
          .set(bearer(tenant.token))
          .send({ installation_id: opener.installation, type: 'opened' })
          .expect(202);
      }
      const winner = opener ? 'long' : 'short';
      expect(await decider().decideDue(later())).toEqual([id]);
      // Decided once: a second decider finds nothing.
      expect(await decider().decideDue(later())).toEqual([]);
      expect(await decider().decide(id, later())).toBe(false);

      const done = await notificationCompleted(ctx, tenant.token, id);
      expect(done.ab_test).toEqual({ phase: 'done', winner, decided_at: expect.stringMatching(/Z$/) });
      for (const d of rest) expect(titlesSent(d.token)).toEqual([titleOf(winner)]);
      for (const d of sampled) expect(titlesSent(d.token)).toHaveLength(1);
      expect(done.statistics.accepted).toBe(devices.length);
      const trace = await traceByInstallation(ctx, tenant.token, id);
      for (const d of rest) expect(trace[d.installation].variant).toBe(winner);

      // The webhook is called with the Notification, its winner set.
      const call = await waitFor(
        async () => receiver.calls.map((c) => JSON.parse(c.body)).find((b) => b.type === 'notification.ab_test_decided' && b.data.id === id) ?? null,
        'the notification.ab_test_decided webhook',
      );
      expect(call.data.ab_test).toMatchObject({ winner, decided_at: expect.stringMatching(/Z$/) });
    });

    it('gives a tie to the first listed variant', async () => {
      const devices = await audience('tie', 20);
      const res = await send({ recipients: { user_ids: [...new Set(devices.map((d) => d.user))] }, variants, options: { ab_test: abTest } });
      const id = res.body.data.id;
      await sampleDone(id);
      // Due winner_after after the fan-out began, stored: a decider started later (a restart) finds it once it is past.
      const [stored] = await ctx.db.query(`SELECT processing_started_at, ab_due_at FROM notifications WHERE id = $1`, [id]);
      expect(stored.ab_due_at.getTime() - stored.processing_started_at.getTime()).toBe(5 * 60_000);
      expect(await decider().decideDue()).not.toContain(id);
      await ctx.db.query(`UPDATE notifications SET ab_due_at = now() - interval '1 second' WHERE id = $1`, [id]);
      expect(await decider().decideDue()).toContain(id);
      expect((await readNotification(ctx, tenant.token, id)).ab_test.winner).toBe('short');
      await notificationCompleted(ctx, tenant.token, id);
    });

    it('is decided by its delayed job on the maintenance queue', async () => {
      const devices = await audience('job', 10);
      const res = await send({ recipients: { user_ids: [...new Set(devices.map((d) => d.user))] }, variants, options: { ab_test: abTest } });
      const id = res.body.data.id;
      await sampleDone(id);
      const queue = testQueue(ctx, MAINTENANCE_QUEUE);
      try {
        const job = await queue.getJob(abDecisionJobId(id));
        expect(await job?.getState()).toBe('delayed');
        // As if winner_after passed: the stored due time moves back, and the job runs now.
        await ctx.db.query(`UPDATE notifications SET ab_due_at = now() - interval '1 second' WHERE id = $1`, [id]);
        await job!.promote();
      } finally {
        await queue.close();
      }
      const done = await notificationCompleted(ctx, tenant.token, id);
      expect(done.ab_test).toMatchObject({ phase: 'done', winner: 'short' });
    });

    it('cancelled in its sample phase: never decided, the rest skipped as Canceled and never sent', async () => {
      const devices = await audience('cancel', 20);
      const res = await send({ recipients: { user_ids: [...new Set(devices.map((d) => d.user))] }, variants, options: { ab_test: abTest } });
      const id = res.body.data.id;
      await sampleDone(id);
      await ctx.http().post(`/api/v1/notifications/${id}/cancel`).set(bearer(tenant.token)).expect(200);
      expect(await decider().decideDue(later())).not.toContain(id);
      expect(await decider().decide(id, later())).toBe(false);
      const done = await notificationCompleted(ctx, tenant.token, id);
      expect(done.ab_test).toEqual({ phase: 'done', winner: null, decided_at: null });
      const rest = devices.filter((d) => !inSample(id, subjectOf(d.user, d.installation), 30));
      const stored = new Map((await rows(id)).map((r) => [r.installation_id, r]));
      for (const d of rest) {
        expect(stored.get(d.installation)).toMatchObject({ status: 'skipped', reason: 'Canceled' });
        expect(titlesSent(d.token)).toEqual([]);
      }
    });
  });

  it('previews a send with variants as its first variant', async () => {
    const res = await ctx
      .http()
      .post('/api/v1/notifications/preview')
      .set(bearer(tenant.token))
      .send({ recipients: { all: true }, variants })
      .expect(200);
    const ios = res.body.data.platforms.find((p: { platform: string }) => p.platform === 'ios');
    expect(ios.payload.aps.alert.title).toBe('Sale');
  });

  it('needs notifications:send like any send', async () => {
    const reader = await newToken(ctx, tenant.appId, ['installations:write']);
    await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(reader))
      .send({ recipients: { user_ids: ['u'] }, variants })
      .expect(403);
  });
});
