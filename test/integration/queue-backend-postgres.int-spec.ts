import { FANOUT_QUEUE } from '../../src/common/queues';
import { EnvironmentVariables } from '../../src/config/env';
import { PaceLimiter } from '../../src/queue/pace-limiter';
import { PaceRepository } from '../../src/queue/pace.repository';
import { queueSchema } from '../../src/queue/queue-backend';
import { RateLimitRepository } from '../../src/rate-limit/rate-limit.repository';
import { PostgresThrottlerStorage, SharedThrottlerStorage } from '../../src/rate-limit/shared-throttler.storage';
import { apnsToken, bearer, newInstallation } from '../support/factories';
import { notificationCompleted } from '../support/notifications';
import { useAppWithFakeProviders } from '../support/use-app-with-fake-providers';
import { useTenantWithProviders } from '../support/use-tenant-with-providers';

/**
 * QUEUE_BACKEND=postgres in one process (docs/operations.md "Choosing a queue backend"), whatever
 * backend the run uses: no Redis answers at REDIS_URL, so anything that still opened Redis would
 * fail the send or the readiness check. The shared stores (rate limits, pace) are checked with two
 * instances standing for two processes, on an injected clock.
 */
describe('QUEUE_BACKEND=postgres (docs/api.md#processes)', () => {
  const stack = useAppWithFakeProviders({ QUEUE_BACKEND: 'postgres', REDIS_URL: 'redis://127.0.0.1:1' });
  const { ctx } = stack;
  const tenant = useTenantWithProviders(stack);

  it('is ready, naming PostgreSQL as the queue store and no Redis', async () => {
    const ready = await ctx.http().get('/health/ready').expect(200);
    expect(ready.body.info.queues).toEqual({ status: 'up', backend: 'postgres' });
    expect(ready.body.info.redis).toBeUndefined();
  });

  it("delivers a send through BullMQ's tables in the prefix's schema", async () => {
    await newInstallation(ctx, tenant.token, { platform: 'ios', push_token: apnsToken(), user_id: 'pg-user' });
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ notification: { title: 'On PostgreSQL', body: 'No Redis' }, recipients: { user_ids: ['pg-user'] } });
    expect(res.status).toBe(202);
    const done = await notificationCompleted(ctx, tenant.token, res.body.data.id);
    expect(done.statistics).toEqual(expect.objectContaining({ accepted: 1 }));
    const schema = queueSchema(ctx.queuePrefix);
    const [queues] = await ctx.db.query(`SELECT count(*)::int AS jobs FROM "${schema}".job WHERE queue IN ($1, 'deliver', 'deliver-small')`, [FANOUT_QUEUE]);
    expect(queues.jobs).toBeGreaterThan(0);
  });

  it('counts rate-limit hits for every process in one row, blocks past the limit, then opens a fresh window', async () => {
    let now = Date.UTC(2026, 0, 1);
    const prefix = ctx.get(EnvironmentVariables).QUEUE_PREFIX;
    expect(ctx.app.get(SharedThrottlerStorage, { strict: false })).toBeInstanceOf(PostgresThrottlerStorage);
    const processes = [0, 1].map(() => new PostgresThrottlerStorage(new RateLimitRepository(ctx.db), prefix, () => now));
    const hit = (i: number) => processes[i % 2].increment('token:t1', 60_000, 3, 30_000, 'default');

    expect(await hit(0)).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    now += 10_000;
    expect(await hit(1)).toEqual({ totalHits: 2, timeToExpire: 50, isBlocked: false, timeToBlockExpire: 0 });
    expect(await hit(0)).toEqual({ totalHits: 3, timeToExpire: 50, isBlocked: false, timeToBlockExpire: 0 });
    expect(await hit(1)).toEqual({ totalHits: 4, timeToExpire: 30, isBlocked: true, timeToBlockExpire: 30 });
    now += 10_000;
    expect(await hit(0)).toEqual({ totalHits: 4, timeToExpire: 20, isBlocked: true, timeToBlockExpire: 20 });
    expect(await processes[1].blockedFor('token:t1', 'default')).toBe(20_000);
    expect(await processes[1].blockedFor('token:other', 'default')).toBe(0);
    now += 20_000;
    expect(await hit(1)).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
  });

  it('keeps one pace for every worker: turns follow each other at the rate, and a share given back is reused', async () => {
    const config = ctx.get(EnvironmentVariables);
    const workers = [ctx.get(PaceLimiter), new PaceLimiter(config, new PaceRepository(ctx.db))];
    const at = Date.UTC(2026, 0, 1);
    // 600 a minute, batches of 5: a batch's share is 500 ms; the second waits half a share less.
    expect(await workers[0].take('00000000-0000-4000-8000-0000000000aa', 600, 5, at)).toBe(0);
    expect(await workers[1].take('00000000-0000-4000-8000-0000000000aa', 600, 5, at)).toBe(250);
    expect(await workers[0].take('00000000-0000-4000-8000-0000000000aa', 600, 5, at)).toBe(750);
    await workers[1].giveBack('00000000-0000-4000-8000-0000000000aa', 600, 5);
    expect(await workers[1].take('00000000-0000-4000-8000-0000000000aa', 600, 5, at)).toBe(750);
    // Another send has a pace of its own.
    expect(await workers[1].take('00000000-0000-4000-8000-0000000000bb', 600, 5, at)).toBe(0);
  });
});
