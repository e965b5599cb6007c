import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { FANOUT_QUEUE, FanoutJob, fanoutJobId } from '../../src/common/queues';
import { EnvironmentVariables, parseEnv } from '../../src/config/env';
import { RetentionRepository } from '../../src/delivery/retention/retention.repository';
import { RetentionService } from '../../src/delivery/retention/retention.service';
import { SweeperService } from '../../src/delivery/sweeper/sweeper.service';
import { FanOutService } from '../../src/delivery/fan-out/fan-out.service';
import { batchIntervalMs, throttleBatchSize } from '../../src/delivery/fan-out/pacing';
import { nextLocalTime } from '../../src/delivery/fan-out/local-time';
import { PaceLimiter } from '../../src/queue/pace-limiter';
import { PaceRepository } from '../../src/queue/pace.repository';
import { apnsToken, bearer, newInstallation } from '../support/factories';
import { notificationCompleted, readNotification } from '../support/notifications';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';

/** Throttled sends, categories, frequency caps and quiet hours (docs/api.md#pacing), API to provider in one process. */
describe('pacing (docs/api.md#pacing)', () => {
  const stack = useAppWithFakeProviders();
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack, 'Pacing');

  const send = (body: Record<string, unknown>) =>
    ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ notification: { title: 'Hello', body: 'World' }, ...body });
  const sent = async (body: Record<string, unknown>): Promise<string> => {
    const res = await send(body);
    expect(res.status).toBe(202);
    return res.body.data.id as string;
  };
  const completed = (id: string, timeoutMs?: number) => notificationCompleted(ctx, tenant.token, id, timeoutMs);
  const trace = async (id: string) =>
    (await ctx.http().get(`/api/v1/notifications/${id}/deliveries?limit=1000`).set(bearer(tenant.token)).expect(200)).body.data as Record<string, any>[];
  /** iOS installations of one new user; their push tokens. */
  const iosUsers = async (count: number, device: Record<string, unknown> = {}): Promise<{ user: string; tokens: string[] }> => {
    const user = `user-${randomUUID()}`;
    const tokens: string[] = [];
    for (let i = 0; i < count; i++) {
      const push_token = apnsToken();
      await newInstallation(ctx, tenant.token, { platform: 'ios', push_token, user_id: user, ...(Object.keys(device).length ? { device } : {}) });
      tokens.push(push_token);
    }
    return { user, tokens };
  };
  const apnsTimes = (tokens: string[]) =>
    stack.fakes.apns.requests
      .filter((r) => tokens.includes(r.token))
      .map((r) => r.at.getTime())
      .sort((a, b) => a - b);
  const settings = (values: {
    frequency_cap_max?: number | null;
    frequency_cap_hours?: number | null;
    quiet_hours_start?: string | null;
    quiet_hours_end?: string | null;
  }) =>
    ctx.db.query(`UPDATE apps SET frequency_cap_max = $2, frequency_cap_hours = $3, quiet_hours_start = $4, quiet_hours_end = $5 WHERE id = $1`, [
      tenant.appId,
      values.frequency_cap_max ?? null,
      values.frequency_cap_hours ?? null,
      values.quiet_hours_start ?? null,
      values.quiet_hours_end ?? null,
    ]);
  afterEach(() => settings({}));

  describe('options', () => {
    it.each<[string, Record<string, unknown>, string, string]>([
      ['a throttle under 60', { throttle_per_minute: 59 }, 'options.throttle_per_minute', 'The options.throttle_per_minute field must be at least 60.'],
      [
        'a throttle over 1,000,000',
        { throttle_per_minute: 1_000_001 },
        'options.throttle_per_minute',
        'The options.throttle_per_minute field must not be greater than 1000000.',
      ],
      ['a fractional throttle', { throttle_per_minute: 60.5 }, 'options.throttle_per_minute', 'The options.throttle_per_minute field must be an integer.'],
      ['an unknown category', { category: 'promotional' }, 'options.category', 'The selected options.category is invalid.'],
    ])('422 on %s', async (_name, options, field, message) => {
      const res = await send({ recipients: { user_ids: ['u'] }, options });
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toEqual([message]);
    });

    it('echoes throttle_per_minute and category in the notification', async () => {
      const id = await sent({ recipients: { user_ids: ['nobody'] }, options: { throttle_per_minute: 60, category: 'marketing' } });
      expect((await readNotification(ctx, tenant.token, id)).options).toMatchObject({ throttle_per_minute: 60, category: 'marketing' });
    });
  });

  describe('options.throttle_per_minute', () => {
    it('spreads the messages over the minute at the rate, showing what still waits as scheduled', async () => {
      // 6,000 a minute: batches of 50, one every half second; 200 messages take four of them.
      const { user, tokens } = await iosUsers(200);
      const id = await sent({ recipients: { user_ids: [user] }, options: { throttle_per_minute: 6000 } });
      const waiting = await waitFor(async () => {
        const rows = await trace(id);
        return rows.length === 200 ? rows : null;
      }, 'the fan-out');
      const scheduled = waiting.filter((d) => d.status === 'scheduled');
      expect(scheduled.length).toBeGreaterThanOrEqual(100);
      expect(new Set(scheduled.map((d) => d.scheduled_for)).size).toBeGreaterThanOrEqual(2);

      const done = await completed(id, 20_000);
      expect(done.statistics).toMatchObject({ installations: 200, accepted: 200 });
      const times = apnsTimes(tokens);
      expect(times).toHaveLength(200);
      // Four batches half a second apart, each allowed a quarter of a second early: their turns span
      // 1.25 s at least, less the time the first batch's requests took (a new connection): not a burst.
      expect(times[199] - times[0]).toBeGreaterThanOrEqual(900);
      // Never more than twice the even rate (100 a second) in any second.
      for (const start of times) expect(times.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(200);
    });

    it('can be cancelled midway: what still waits is skipped as Canceled', async () => {
      const { user, tokens } = await iosUsers(5);
      const id = await sent({ recipients: { user_ids: [user] }, options: { throttle_per_minute: 60 } });
      await waitFor(async () => (apnsTimes(tokens).length >= 1 ? true : null), 'the first message');
      const res = await ctx.http().post(`/api/v1/notifications/${id}/cancel`).set(bearer(tenant.token));
      expect(res.status).toBe(200);
      const done = await completed(id);
      expect(done.statistics.accepted).toBeLessThan(5);
      expect(done.statistics.accepted + done.statistics.skipped).toBe(5);
      expect((await trace(id)).filter((d) => d.reason === 'Canceled')).toHaveLength(done.statistics.skipped);
      expect(apnsTimes(tokens)).toHaveLength(done.statistics.accepted);
    });

    it('fans out a large send ten seconds of turns ahead, the rest as its turns come near; a cancel fans out the rest at once', async () => {
      // 60 a minute: a batch of one a second, chunks of 10. After 30 rows the next turn is thirty
      // seconds away, more than the twenty of lead: the fan-out job pauses, in Redis, ten seconds.
      const tag = `paced-${randomUUID().slice(0, 8)}`;
      await ctx.db.query(
        `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, tags, registered_at, last_seen_at)
         SELECT $1, $2 || '-' || n, 'ios', md5($2 || n) || md5(n::text), $2 || '-user-' || n, 'granted', ARRAY[$2], now(), now() FROM generate_series(1, 300) AS n`,
        [tenant.appId, tag],
      );
      const id = await sent({ recipients: { tags: [tag] }, options: { throttle_per_minute: 60 } });
      const queue = ctx.app.get<Queue<FanoutJob>>(getQueueToken(FANOUT_QUEUE), { strict: false });
      const job = await waitFor(async () => {
        const found = await queue.getJob(fanoutJobId(id));
        // Paused for its turns (pausedUntil), not delayed by a retry of an attempt that failed on a busy machine.
        return found && found.data.pausedUntil !== undefined && (await found.isDelayed()) ? found : null;
      }, 'the fan-out to pause');
      expect(job.data.pausedUntil).toBeGreaterThan(Date.now() + 5_000);
      expect(await trace(id)).toHaveLength(30);
      // The counts show the whole audience from the start; the trace, what the fan-out wrote so far.
      // Turns go on meanwhile (one a second), so some of those 30 may have been delivered already.
      const notification = await readNotification(ctx, tenant.token, id);
      expect(notification.statistics).toMatchObject({ installations: 300, failed: 0, skipped: 0 });
      expect(notification.statistics.accepted).toBeLessThanOrEqual(30);

      // Come back (as the job would ten seconds later): one more chunk, and a pause until the next is a lead away.
      const more = await ctx.get(FanOutService).fanOut(id, false, true);
      expect(more).toMatchObject({ ran: true, installations: 10 });
      expect(more.pausedUntil!.getTime()).toBeGreaterThan(job.data.pausedUntil! + 8_000);
      expect(await trace(id)).toHaveLength(40);

      // The sweeper leaves a paused fan-out alone, however old the send.
      await ctx.db.query(`UPDATE notifications SET created_at = created_at - interval '1 hour' WHERE id = $1`, [id]);
      await ctx.get(SweeperService).sweep();
      expect(await (await queue.getJob(fanoutJobId(id)))!.isDelayed()).toBe(true);

      await ctx.http().post(`/api/v1/notifications/${id}/cancel`).set(bearer(tenant.token)).expect(200);
      const done = await completed(id);
      expect(done.statistics.installations).toBe(300);
      expect(done.statistics.accepted + done.statistics.skipped).toBe(300);
      expect((await trace(id)).filter((d) => d.reason === 'Canceled')).toHaveLength(done.statistics.skipped);
    });

    it.each(['user_ids', 'installation_ids', 'filter', 'topic'] as const)(
      'counts the whole audience of a throttled send to %s from its first chunk, then those it considered',
      async (kind) => {
        // 40 installations at 60 a minute: the fan-out writes 30, then pauses. One of them is deleted meanwhile.
        const tag = `counted-${randomUUID().slice(0, 8)}`;
        const rows: { installation_id: string; user_id: string }[] = await ctx.db.query(
          `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, tags, registered_at, last_seen_at)
           SELECT $1, $2 || '-' || n, 'ios', md5($2 || n) || md5(n::text), $2 || '-user-' || n, 'granted', ARRAY[$2], now(), now()
           FROM generate_series(1, 40) AS n RETURNING installation_id, user_id`,
          [tenant.appId, tag],
        );
        await ctx.db.query(`INSERT INTO topics (app_id, key, name, default_subscribed) VALUES ($1, $2, $2, false)`, [tenant.appId, tag]);
        await ctx.db.query(`INSERT INTO topic_subscriptions (app_id, topic_key, user_id, subscribed) SELECT $1, $2, unnest($3::text[]), true`, [
          tenant.appId,
          tag,
          rows.map((r) => r.user_id),
        ]);
        const recipients = {
          topic: { topic: tag },
          user_ids: { user_ids: rows.map((r) => r.user_id) },
          installation_ids: { installation_ids: rows.map((r) => r.installation_id) },
          filter: { filter: { field: 'tags', op: 'contains', value: tag } },
        }[kind];
        const id = await sent({ recipients, options: { throttle_per_minute: 60 } });
        const queue = ctx.app.get<Queue<FanoutJob>>(getQueueToken(FANOUT_QUEUE), { strict: false });
        await waitFor(async () => {
          const found = await queue.getJob(fanoutJobId(id));
          return found && (await found.isDelayed()) ? found : null;
        }, 'the fan-out to pause');
        const written = await trace(id);
        expect(written).toHaveLength(30);
        expect((await readNotification(ctx, tenant.token, id)).statistics.installations).toBe(40);

        const unwritten = rows.find((r) => !written.some((w) => w.installation_id === r.installation_id))!;
        await ctx.db.query(`UPDATE installations SET deleted_at = now() WHERE app_id = $1 AND installation_id = $2`, [tenant.appId, unwritten.installation_id]);
        await ctx.http().post(`/api/v1/notifications/${id}/cancel`).set(bearer(tenant.token)).expect(200);
        const done = await completed(id);
        expect(done.statistics.installations).toBe(39);
        expect(done.statistics.accepted + done.statistics.failed + done.statistics.skipped).toBe(39);
      },
    );

    it('does not slow other notifications: a one-time code sent meanwhile arrives at once', async () => {
      const slow = await iosUsers(5);
      const throttled = await sent({ recipients: { user_ids: [slow.user] }, options: { throttle_per_minute: 60 } });
      await waitFor(async () => (apnsTimes(slow.tokens).length >= 1 ? true : null), 'the throttled send to start');
      const code = await iosUsers(1);
      const id = await sent({ recipients: { user_ids: [code.user] }, notification: { title: 'Your code', body: '123456' } });
      await completed(id, 3000);
      expect((await readNotification(ctx, tenant.token, throttled)).completed_at).toBeNull();
      await ctx.http().post(`/api/v1/notifications/${throttled}/cancel`).set(bearer(tenant.token)).expect(200);
    });

    it('holds every worker process to one rate: 600 a minute is 600 ± 2% per full minute, never twice the even rate in a second (injected clock)', async () => {
      // Two limiters on the same Redis stand for two worker processes; the clock is simulated, so
      // three minutes take a moment. Each batch of a 600-a-minute send (5 messages, every 500 ms)
      // first comes up to 200 ms after its turn, on either process; when told to wait, it comes
      // back up to 20 ms after that (BullMQ's delayed jobs), as the deliver job does.
      const limiters = [ctx.get(PaceLimiter), new PaceLimiter(ctx.get(EnvironmentVariables), new PaceRepository(ctx.db))];
      try {
        const size = throttleBatchSize(600, 500);
        const interval = batchIntervalMs(600, size);
        const notificationId = randomUUID();
        const t0 = Date.UTC(2026, 0, 1);
        let seed = 7;
        const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
        const tries = Array.from({ length: 400 }, (_, k) => ({ at: t0 + k * interval + random() * 200, process: k % 2, paced: false }));
        const granted: number[] = [];
        while (tries.length > 0) {
          tries.sort((a, b) => a.at - b.at);
          const next = tries.shift()!;
          const waitMs = next.paced ? 0 : await limiters[next.process].take(notificationId, 600, size, next.at);
          if (waitMs === 0) granted.push(next.at);
          else tries.push({ at: next.at + waitMs + random() * 20, process: 1 - next.process, paced: true });
        }
        for (let minute = 0; minute < 3; minute++) {
          const inMinute = granted.filter((t) => t >= t0 + minute * 60_000 && t < t0 + (minute + 1) * 60_000).length * size;
          expect(Math.abs(inMinute - 600)).toBeLessThanOrEqual(12);
        }
        for (const start of granted) expect(granted.filter((t) => t >= start && t < start + 1000).length * size).toBeLessThanOrEqual(20);
      } finally {
        await limiters[1].onModuleDestroy();
      }
    });

    it('spreads a crowd of batches due at once (workers that were away) in one round: each is given its turn', async () => {
      const limiter = ctx.get(PaceLimiter);
      const notificationId = randomUUID();
      const now = Date.UTC(2026, 0, 1);
      // 600 a minute, batches of 5: every 500 ms; the second may start a quarter of a second early.
      const turns = [];
      for (let k = 0; k < 6; k++) turns.push(await limiter.take(notificationId, 600, 5, now));
      expect(turns).toEqual([0, 250, 750, 1250, 1750, 2250]);
      // A batch with fewer rows gives back what it did not use: the next turn comes sooner.
      await limiter.giveBack(notificationId, 600, 5);
      expect(await limiter.take(notificationId, 600, 5, now)).toBe(2250);
    });
  });

  describe('frequency cap', () => {
    it('skips an installation that already had the cap of accepted marketing messages in the window, as FrequencyCapped', async () => {
      await settings({ frequency_cap_max: 2, frequency_cap_hours: 24 });
      const { user, tokens } = await iosUsers(1);
      const marketing = { recipients: { user_ids: [user] }, options: { category: 'marketing' } };
      for (let i = 0; i < 2; i++) expect((await completed(await sent(marketing))).statistics.accepted).toBe(1);

      const capped = await completed(await sent(marketing));
      expect(capped.statistics).toMatchObject({ installations: 1, accepted: 0, skipped: 1 });
      expect((await trace(capped.id))[0]).toMatchObject({ status: 'skipped', reason: 'FrequencyCapped' });
      // Transactional sends are not capped.
      expect((await completed(await sent({ recipients: { user_ids: [user] } }))).statistics.accepted).toBe(1);
      expect(apnsTimes(tokens)).toHaveLength(3);

      // Messages older than the window no longer count.
      await ctx.db.query(
        `UPDATE marketing_receipts SET accepted_at = accepted_at - interval '25 hours' WHERE installation_id = (SELECT id FROM installations WHERE push_token = $1)`,
        [tokens[0]],
      );
      expect((await completed(await sent(marketing))).statistics.accepted).toBe(1);
    });

    it('holds under concurrent sends: of 20 marketing sends at once to one installation capped at 1, one is accepted', async () => {
      await settings({ frequency_cap_max: 1, frequency_cap_hours: 24 });
      const { user, tokens } = await iosUsers(1);
      const marketing = { recipients: { user_ids: [user] }, options: { category: 'marketing' } };
      const ids = await Promise.all(Array.from({ length: 20 }, () => sent(marketing)));
      const done = await Promise.all(ids.map((id) => completed(id)));
      const total = (key: string) => done.reduce((sum, n) => sum + (n.statistics[key] as number), 0);
      expect({ accepted: total('accepted'), skipped: total('skipped') }).toEqual({ accepted: 1, skipped: 19 });
      expect(apnsTimes(tokens)).toHaveLength(1);
      const after = await completed(await sent(marketing));
      expect(after.statistics).toMatchObject({ accepted: 0, skipped: 1 });
    });

    it('gives back the place of a marketing message cancelled before it was sent', async () => {
      const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);
      const quiet = { quiet_hours_start: clock(Date.now() - 3_600_000), quiet_hours_end: clock(Date.now() + 7_200_000) };
      await settings({ frequency_cap_max: 1, frequency_cap_hours: 24, ...quiet });
      const { user, tokens } = await iosUsers(1);
      const marketing = { recipients: { user_ids: [user] }, options: { category: 'marketing' } };
      // Held by quiet hours: fanned out, in flight, so it holds the installation's one place.
      const held = await sent(marketing);
      await waitFor(async () => ((await trace(held))[0]?.status === 'scheduled' ? true : null), 'the held message');
      expect((await completed(await sent(marketing))).statistics).toMatchObject({ skipped: 1 });

      await ctx.http().post(`/api/v1/notifications/${held}/cancel`).set(bearer(tenant.token)).expect(200);
      expect((await completed(held)).statistics).toMatchObject({ accepted: 0, skipped: 1 });
      await settings({ frequency_cap_max: 1, frequency_cap_hours: 24 });
      expect((await completed(await sent(marketing))).statistics.accepted).toBe(1);
      expect(apnsTimes(tokens)).toHaveLength(1);
    });

    it('counts a marketing message accepted before the app set its cap, once, and a capped one once', async () => {
      const { user, tokens } = await iosUsers(1);
      const marketing = { recipients: { user_ids: [user] }, options: { category: 'marketing' } };
      expect((await completed(await sent(marketing))).statistics.accepted).toBe(1);
      await settings({ frequency_cap_max: 3, frequency_cap_hours: 24 });
      expect((await completed(await sent(marketing))).statistics.accepted).toBe(1);
      expect((await completed(await sent(marketing))).statistics.accepted).toBe(1);
      expect((await completed(await sent(marketing))).statistics).toMatchObject({ accepted: 0, skipped: 1 });
      const [{ n }] = await ctx.db.query(
        `SELECT count(*)::int AS n FROM marketing_receipts WHERE installation_id = (SELECT id FROM installations WHERE push_token = $1)`,
        [tokens[0]],
      );
      expect(n).toBe(3);
    });

    it('forgets accepted messages older than the longest window (720 hours) at every retention run, whatever RETENTION_DAYS', async () => {
      const [old, recent] = [randomUUID(), randomUUID()];
      await ctx.db.query(
        `INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
         VALUES ($1, now() - interval '721 hours', $3), ($2, now() - interval '719 hours', $3)`,
        [old, recent, randomUUID()],
      );
      const retention = new RetentionService(new RetentionRepository(ctx.db), parseEnv({ ...process.env, RETENTION_DAYS: '0' }));
      expect((await retention.run()).marketingReceiptsDeleted).toBe(1);
      const left = await ctx.db.query(`SELECT installation_id FROM marketing_receipts WHERE installation_id = ANY($1::uuid[])`, [[old, recent]]);
      expect(left).toEqual([{ installation_id: recent }]);
    });

    it('counts only what the provider accepted', async () => {
      await settings({ frequency_cap_max: 1, frequency_cap_hours: 1 });
      const { user, tokens } = await iosUsers(1);
      stack.fakes.apns.script(tokens[0], [{ status: 400, reason: 'BadTopic' }]);
      const failed = await completed(await sent({ recipients: { user_ids: [user] }, options: { category: 'marketing' } }));
      expect(failed.statistics.failed).toBe(1);
      expect((await completed(await sent({ recipients: { user_ids: [user] }, options: { category: 'marketing' } }))).statistics.accepted).toBe(1);
    });
  });

  describe('quiet hours', () => {
    /** A window around the current UTC time (from an hour ago to two hours ahead), and its end as an instant. */
    const aroundNow = () => {
      const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);
      const start = clock(Date.now() - 3_600_000);
      const end = clock(Date.now() + 7_200_000);
      return { start, end, endsAt: nextLocalTime(new Date(), end, 'UTC') };
    };

    it("holds a marketing message due inside the window on the installation's clock until it ends: scheduled, scheduled_for the end", async () => {
      const window = aroundNow();
      await settings({ quiet_hours_start: window.start, quiet_hours_end: window.end });
      const utc = await iosUsers(1);
      const id = await sent({ recipients: { user_ids: [utc.user] }, options: { category: 'marketing' } });
      const [row] = await waitFor(async () => {
        const rows = await trace(id);
        return rows.length === 1 ? rows : null;
      }, 'the fan-out');
      expect(row).toMatchObject({ status: 'scheduled', reason: null, scheduled_for: window.endsAt.toISOString() });
      expect((await readNotification(ctx, tenant.token, id)).completed_at).toBeNull();
      await ctx.http().post(`/api/v1/notifications/${id}/cancel`).set(bearer(tenant.token)).expect(200);
    });

    it('sends at once to an installation whose own clock is outside the window, and any transactional send', async () => {
      const window = aroundNow();
      await settings({ quiet_hours_start: window.start, quiet_hours_end: window.end });
      // Twelve hours from UTC (or eleven in summer): outside a three-hour window around UTC's now.
      const away = await iosUsers(1, { timezone: 'Pacific/Auckland' });
      expect((await completed(await sent({ recipients: { user_ids: [away.user] }, options: { category: 'marketing' } }))).statistics.accepted).toBe(1);
      const utc = await iosUsers(1);
      expect((await completed(await sent({ recipients: { user_ids: [utc.user] } }))).statistics.accepted).toBe(1);
    });

    it('skips it as QuietHours when its ttl would run out before the window ends', async () => {
      const window = aroundNow();
      await settings({ quiet_hours_start: window.start, quiet_hours_end: window.end });
      const utc = await iosUsers(1, { timezone: 'Not/AZone' });
      const done = await completed(await sent({ recipients: { user_ids: [utc.user] }, options: { category: 'marketing', ttl: 600 } }));
      expect(done.statistics).toMatchObject({ installations: 1, skipped: 1 });
      expect((await trace(done.id))[0]).toMatchObject({ status: 'skipped', reason: 'QuietHours' });
    });
  });
});
