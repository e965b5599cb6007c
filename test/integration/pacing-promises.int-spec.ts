import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { AllModule } from '../../src/app.module';
import { FANOUT_QUEUE, FanoutJob, fanoutJobId } from '../../src/common/queues';
import { Clock } from '../../src/common/time';
import { EnvironmentVariables } from '../../src/config/env';
import { FanOutService } from '../../src/delivery/fan-out/fan-out.service';
import { nextLocalTime } from '../../src/delivery/fan-out/local-time';
import { throttleBatchSize } from '../../src/delivery/fan-out/pacing';
import { PaceLimiter } from '../../src/queue/pace-limiter';
import { PaceRepository } from '../../src/queue/pace.repository';
import { useTestApp } from '../support/create-test-app';
import { bearer } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { FakeProviders, startFakeProviders } from '../support/providers';
import { TestClock } from '../support/test-clock';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';
import { waitFor } from '../support/wait-for';

/** What docs/api.md#pacing promises of a throttled send: quiet hours along the way, and the most in any second. */
describe('pacing promises (docs/api.md#pacing)', () => {
  const clock = new TestClock();
  let fakes: FakeProviders | undefined;
  beforeAll(async () => {
    fakes = await startFakeProviders();
  });
  const ctx = useTestApp(() => ({ module: AllModule, env: fakes!.env, override: (builder) => builder.overrideProvider(Clock).useValue(clock) }));
  afterAll(() => fakes?.stop());
  const tenant = useTenantWithProviders({
    ctx,
    get fakes() {
      return fakes!;
    },
  });
  afterEach(() => clock.reset());

  const trace = async (id: string) =>
    (await ctx.http().get(`/api/v1/notifications/${id}/deliveries?limit=1000`).set(bearer(tenant.token)).expect(200)).body.data as Record<string, any>[];

  it('holds the later messages of a throttled marketing send that runs into quiet hours until they end (injected clock)', async () => {
    // 60 a minute: a batch of one a second; the fan-out writes 30 turns, then pauses until they come near.
    const tag = `quiet-${randomUUID().slice(0, 8)}`;
    await ctx.db.query(
      `INSERT INTO installations (app_id, installation_id, platform, push_token, user_id, permission, tags, registered_at, last_seen_at)
       SELECT $1, $2 || '-' || n, 'ios', md5($2 || n) || md5(n::text), $2 || '-user-' || n, 'granted', ARRAY[$2], now(), now() FROM generate_series(1, 100) AS n`,
      [tenant.appId, tag],
    );
    // Quiet hours from two hours ahead to three hours ahead (UTC): the send starts outside them.
    const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
    const start = hhmm(clock.now() + 2 * 3_600_000);
    const end = hhmm(clock.now() + 3 * 3_600_000);
    await ctx.db.query(`UPDATE apps SET quiet_hours_start = $2, quiet_hours_end = $3 WHERE id = $1`, [tenant.appId, start, end]);
    try {
      const res = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .send({ recipients: { tags: [tag] }, notification: { title: 'Sale', body: 'Now' }, options: { category: 'marketing', throttle_per_minute: 60 } })
        .expect(202);
      const id = res.body.data.id as string;
      const queue = ctx.app.get<Queue<FanoutJob>>(getQueueToken(FANOUT_QUEUE), { strict: false });
      await waitFor(async () => {
        const found = await queue.getJob(fanoutJobId(id));
        return found && (await found.isDelayed()) ? found : null;
      }, 'the fan-out to pause');
      const first = await trace(id);
      expect(first).toHaveLength(30);

      // The campaign has run into the quiet hours when its fan-out comes back for the next turns.
      clock.advance(2 * 3_600_000 + 60_000);
      const endsAt = nextLocalTime(new Date(clock.now()), end, 'UTC');
      expect(await ctx.get(FanOutService).fanOut(id, false, true)).toMatchObject({ ran: true, installations: 70 });
      const rows = await trace(id);
      const later = rows.filter((row) => !first.some((f) => f.installation_id === row.installation_id));
      expect(later).toHaveLength(70);
      for (const row of later) expect(row).toMatchObject({ status: 'scheduled', reason: null, scheduled_for: endsAt.toISOString() });
      // The turns written before it came are not moved.
      for (const row of first) expect(row.scheduled_for === endsAt.toISOString()).toBe(false);

      await ctx.http().post(`/api/v1/notifications/${id}/cancel`).set(bearer(tenant.token)).expect(200);
      await notificationCompleted(ctx, tenant.token, id);
    } finally {
      await ctx.db.query(`UPDATE apps SET quiet_hours_start = NULL, quiet_hours_end = NULL WHERE id = $1`, [tenant.appId]);
    }
  });

  it('lets through at most the rate plus one batch in any sliding second, batches early, late and given back (simulated clock)', async () => {
    const config = ctx.get(EnvironmentVariables);
    const limiters = [new PaceLimiter(config, new PaceRepository(ctx.db)), new PaceLimiter(config, new PaceRepository(ctx.db))];
    try {
      // 24,000 a minute: 400 a second, batches of 200 (half a second's worth).
      const perMinute = 24_000;
      const size = throttleBatchSize(perMinute, 500);
      const interval = (size * 60_000) / perMinute;
      const key = `bound-${randomUUID()}`;
      const t0 = Date.UTC(2026, 0, 1);
      let seed = 7;
      const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
      // A batch comes up to 250 ms early or 400 ms late; one sent back to its turn comes back up to 600 ms after it
      // (a busy queue), as the deliver job does (DeliveriesService.deliverBatch); every fifth claims half its rows.
      type Try = { at: number; k: number; process: number; turnAt?: number };
      const tries: Try[] = Array.from({ length: 240 }, (_, k) => ({ at: t0 + k * interval - 250 + random() * 650, k, process: k % 2 }));
      const sent: number[] = [];
      while (tries.length > 0) {
        tries.sort((a, b) => a.at - b.at);
        const next = tries.shift()!;
        const kept = next.turnAt !== undefined && PaceLimiter.turnKept(next.turnAt, perMinute, size, next.at);
        const waitMs = kept ? 0 : await limiters[next.process].take(key, perMinute, size, next.at);
        if (waitMs > 0) {
          tries.push({ ...next, turnAt: next.at + waitMs, at: next.at + waitMs + random() * 600, process: 1 - next.process });
          continue;
        }
        const claimed = next.k % 5 === 0 ? size / 2 : size;
        await limiters[next.process].giveBack(key, perMinute, size - claimed);
        for (let m = 0; m < claimed; m++) sent.push(next.at);
      }
      expect(sent).toHaveLength(240 * size - 48 * (size / 2));
      sent.sort((a, b) => a - b);
      let most = 0;
      for (let i = 0, j = 0; i < sent.length; i++) {
        while (sent[i] - sent[j] >= 1000) j++;
        most = Math.max(most, i - j + 1);
      }
      expect(most).toBeLessThanOrEqual(perMinute / 60 + size);
    } finally {
      await Promise.all(limiters.map((l) => l.onModuleDestroy()));
    }
  });
});
