/**
 * Pacing (docs/api.md#pacing), measured on the built service (bench/lib/stack.ts: api and worker
 * processes, loopback fakes, a fresh database):
 *
 *   1. Throttle accuracy of the limit itself: PaceLimiter (src/queue/pace-limiter.ts) on this Redis,
 *      two instances standing for two worker processes, on a simulated clock: ten minutes of a
 *      600-a-minute send whose batches come up to 200 ms after their turn (up to 20 ms more when
 *      sent back to wait). Messages per full minute (target 600 ± 2%) and the most in any sliding second
 *      against the bound of docs/api.md#pacing (the rate plus two batches).
 *   2. Throttle accuracy end to end: a send to `--throttled` installations (default 3,000) at
 *      `--throttle` a minute (default 12,000: 200 a second, under what this machine delivers), the
 *      providers' request times: messages per full second against the even rate, and the most in
 *      any sliding second against the same bound.
 *   3. A frequency-capped marketing campaign's PostgreSQL CPU per delivery against the same
 *      campaign uncapped: a warm-up marketing broadcast, then `--pairs` pairs (default 3) of
 *      broadcasts without a cap and with one of 100 a day (every installation is counted, none
 *      reaches the cap: the same deliveries), each after a VACUUM ANALYZE so that autovacuum does
 *      not land inside one of them; the medians compared (target: capped <= uncapped + 10%). Then
 *      the cap is lowered to what every installation already has: one more broadcast, all skipped
 *      (FrequencyCapped).
 *
 *   npm run build && npx ts-node --transpile-only bench/scenarios/index.ts pacing [--installations N] [--throttle N] [--throttled N] [--pairs N]
 *   ... bench/scenarios/pacing.ts --fan-out-only [--installations N] [--receipts N]   (only the fan-out statement, receipts written by SQL)
 *
 * It prints a report and exits. The 1,000,000-installation throttled broadcast with a transactional
 * send's latency measured beside it is not part of it (the `pacing-latency` scenario; bench/HISTORY.md "Pacing").
 */
import { Client } from 'pg';
import { clientDataSource } from '../lib/client-data-source';
import { EnvironmentVariables } from '../../src/config/env';
import { FanOutRepository } from '../../src/delivery/fan-out/fan-out.repository';
import { throttleBatchSize } from '../../src/delivery/throttle';
import { PaceLimiter } from '../../src/queue/pace-limiter';
import { cpuMeter, perUnit } from '../lib/cpu';
import { type Seeded, seedInstallations } from '../lib/seed';
import { startStack, type Stack } from '../lib/stack';
import { notificationTotals, postTo } from '../delivery';
import { argValue } from '../lib/args';
import { mostWithin, slidingSecondBound } from '../paced-send';

const INSTALLATIONS = argValue('--installations', 20_000);
const THROTTLE = argValue('--throttle', 12_000);
const THROTTLED = argValue('--throttled', 3_000);
const PAIRS = argValue('--pairs', 3);
/** Only the fan-out statement, on `--receipts` accepted marketing messages per installation written straight into the table. */
const FAN_OUT_ONLY = process.argv.includes('--fan-out-only');
const RECEIPTS = argValue('--receipts', 2);

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

/** The most in any sliding second against the rate, and the bound of docs/api.md#pacing: the rate plus two batches. */
function excess(most: number, perSecond: number, batch: number): string {
  const bound = slidingSecondBound(perSecond * 60, batch);
  return `most in any sliding second: ${most}, ${most - perSecond} over the rate ${perSecond} (bound ${bound}: ${most <= bound ? 'held' : 'EXCEEDED'})`;
}

async function limiterAccuracy(stack: Stack): Promise<void> {
  const config = { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', QUEUE_PREFIX: stack.queuePrefix } as EnvironmentVariables;
  const limiters = [new PaceLimiter(config), new PaceLimiter(config)];
  try {
    const perMinute = 600;
    const size = 5;
    const interval = (size * 60_000) / perMinute;
    const t0 = Date.UTC(2026, 0, 1);
    let seed = 11;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const tries: { at: number; process: number; turnAt?: number }[] = Array.from({ length: 1200 }, (_, k) => ({
      at: t0 + k * interval + random() * 200,
      process: k % 2,
    }));
    const granted: number[] = [];
    let waits = 0;
    while (tries.length > 0) {
      tries.sort((a, b) => a.at - b.at);
      const next = tries.shift()!;
      // As DeliveriesService.deliverBatch: one back for its turn goes, unless half its share late.
      const kept = next.turnAt !== undefined && PaceLimiter.turnKept(next.turnAt, perMinute, size, next.at);
      const waitMs = kept ? 0 : await limiters[next.process].take('bench-limiter', perMinute, size, next.at);
      if (waitMs === 0) for (let m = 0; m < size; m++) granted.push(next.at);
      else {
        waits++;
        tries.push({ at: next.at + waitMs + random() * 20, process: 1 - next.process, turnAt: next.at + waitMs });
      }
    }
    const minutes = Array.from({ length: 9 }, (_, m) => granted.filter((t) => t >= t0 + m * 60_000 && t < t0 + (m + 1) * 60_000).length);
    out(`Throttle 600/min, limiter on a simulated clock (2 processes, batches up to 200 ms late, ${waits} sent back to wait):`);
    out(`  per full minute: ${minutes.join(', ')} (target 588-612)`);
    out(`  ${excess(mostWithin(granted, 1000), 10, size)}`);
  } finally {
    await Promise.all(limiters.map((l) => l.onModuleDestroy()));
  }
}

/** Waits until the notification completes; its totals. */
async function completed(stack: Stack, id: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const totals = await notificationTotals(stack, [id]);
    if (totals.open === 0) return totals;
    if (Date.now() > deadline) throw new Error(`${id} did not complete within ${timeoutMs} ms: ${JSON.stringify(totals)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const requestTimes = (stack: Stack) => [...stack.apns.requests, ...stack.fcm.requests, ...stack.web.requests].map((r) => r.at.getTime()).sort((a, b) => a - b);

async function throttledSend(stack: Stack, seeded: Seeded): Promise<void> {
  stack.resetFakes();
  const id = await postTo(stack, { user_ids: seeded.userIds.slice(0, THROTTLED) }, { options: { throttle_per_minute: THROTTLE } });
  const expectedSeconds = (THROTTLED * 60) / THROTTLE;
  const totals = await completed(stack, id, expectedSeconds * 3000 + 60_000);
  const times = requestTimes(stack);
  const even = THROTTLE / 60;
  const seconds = (times[times.length - 1] - times[0]) / 1000;
  // Full seconds only: the first and the last are partial.
  const perSecond: number[] = [];
  for (let s = 1; s < Math.floor(seconds); s++) perSecond.push(times.filter((t) => t >= times[0] + s * 1000 && t < times[0] + (s + 1) * 1000).length);
  const mean = perSecond.reduce((a, b) => a + b, 0) / Math.max(1, perSecond.length);
  out(`Throttle ${THROTTLE}/min end to end, ${THROTTLED} installations (accepted ${totals.accepted}):`);
  out(`  ${seconds.toFixed(1)} s from first to last message (even: ${(THROTTLED / even).toFixed(1)} s)`);
  out(`  per full second: mean ${mean.toFixed(0)}, min ${Math.min(...perSecond)}, max ${Math.max(...perSecond)} (even rate ${even})`);
  out(`  ${excess(mostWithin(times, 1000), even, throttleBatchSize(THROTTLE, 500))}`);
}

async function campaign(stack: Stack, label: string): Promise<{ accepted: number; skipped: number; pgUs: number; seconds: number }> {
  stack.resetFakes();
  const cpu = cpuMeter(stack.worker!.pid);
  const started = Date.now();
  const id = await postTo(stack, { all: true }, { options: { category: 'marketing' } });
  const totals = await completed(stack, id, 600_000);
  const used = cpu.stop();
  stack.resetFakes();
  const units = totals.accepted + totals.failed + totals.skipped;
  const pgUs = perUnit(used, units).postgres;
  const seconds = (Date.now() - started) / 1000;
  out(`  ${label}: accepted ${totals.accepted}, skipped ${totals.skipped}, ${seconds.toFixed(1)} s, PostgreSQL ${pgUs.toFixed(1)} us per installation`);
  return { accepted: totals.accepted, skipped: totals.skipped, pgUs, seconds };
}

/**
 * The one statement that differs between a capped and an uncapped marketing campaign: the fan-out
 * chunk (FanOutRepository.nextChunk, the worker's own statements) over every installation, for a
 * fresh marketing notification, with and without the cap's count, alternately; one backend runs
 * each chunk, so its time is PostgreSQL's CPU. Microseconds per installation, median of `rounds`.
 */
async function fanOutCost(stack: Stack, rounds: number): Promise<{ uncapped: number; capped: number }> {
  const client = new Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const fanOuts = new FanOutRepository(clientDataSource(client));
    const run = async (cap: { max: number; hours: number } | null) => {
      const [{ id }] = (
        await client.query(
          `INSERT INTO notifications (app_id, title, body, user_ids, target_users, recipient_kind, options, processing_started_at)
           VALUES ($1, 'Hello', 'World', '{}', 0, 'all', '{"category":"marketing"}', now()) RETURNING id`,
          [stack.appId],
        )
      ).rows as { id: string }[];
      const t = process.hrtime.bigint();
      let installations = 0;
      for (;;) {
        const chunk = await fanOuts.nextChunk(id, {
          appId: stack.appId,
          chunkSize: 5000,
          batchSize: 500,
          wanted: ['ios', 'android', 'web'],
          configured: ['apns', 'fcm', 'web_push'],
          silentless: [],
          fixedDue: null,
          cap,
          paceMs: null,
          topic: null,
          marketing: false,
          audienceTimeoutMs: 600_000,
        });
        if (!chunk) break;
        installations += chunk.installations;
      }
      const us = Number(process.hrtime.bigint() - t) / 1e3 / installations;
      // Not delivered: its rows would wait for a job that is never queued.
      await client.query(`DELETE FROM notifications WHERE id = $1`, [id]);
      return us;
    };
    const uncapped: number[] = [];
    const capped: number[] = [];
    for (let round = 0; round < rounds; round++) {
      uncapped.push(await run(null));
      capped.push(await run({ max: 100, hours: 24 }));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    return { uncapped: median(uncapped), capped: median(capped) };
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const stack = await startStack('pacing');
  try {
    log(`seeding ${INSTALLATIONS} installations`);
    const seeded = await seedInstallations(stack, INSTALLATIONS, INSTALLATIONS);
    if (FAN_OUT_ONLY) {
      await stack.db.query(
        `INSERT INTO marketing_receipts (installation_id, accepted_at, notification_id)
         SELECT i.id, now() - make_interval(mins => n), gen_random_uuid() FROM installations i, generate_series(1, $1::int) AS n`,
        [RECEIPTS],
      );
      await stack.db.query('VACUUM ANALYZE');
      const fanOut = await fanOutCost(stack, 5);
      out(`Pacing bench, fan-out statement only, ${INSTALLATIONS} installations, ${RECEIPTS} marketing receipts each, ${new Date().toISOString()}`);
      out(
        `  uncapped ${fanOut.uncapped.toFixed(1)} us, capped ${fanOut.capped.toFixed(1)} us per installation (median of 5): +${(fanOut.capped - fanOut.uncapped).toFixed(1)} us`,
      );
      return;
    }
    await stack.startApi();
    await stack.startWorker();
    out(`Pacing bench, ${INSTALLATIONS} installations, ${new Date().toISOString()}`);
    out();
    await limiterAccuracy(stack);
    out();
    log('throttled send');
    await throttledSend(stack, seeded);
    out();
    out('Marketing broadcast, PostgreSQL CPU per installation (delivered or skipped):');
    await campaign(stack, 'uncapped, warm-up (not compared)');
    const cap = (max: number | null) =>
      stack.db.query(`UPDATE apps SET frequency_cap_max = $2, frequency_cap_hours = $3 WHERE id = $1`, [stack.appId, max, max === null ? null : 24]);
    const vacuum = () => stack.db.query('VACUUM ANALYZE');
    const uncapped: number[] = [];
    const capped: number[] = [];
    for (let pair = 1; pair <= PAIRS; pair++) {
      log(`pair ${pair}`);
      await cap(null);
      await vacuum();
      uncapped.push((await campaign(stack, `uncapped (${pair})`)).pgUs);
      await cap(100);
      await vacuum();
      capped.push((await campaign(stack, `capped 100/24 h, none at the cap (${pair})`)).pgUs);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    out(`  median: uncapped ${median(uncapped).toFixed(1)} us, capped ${median(capped).toFixed(1)} us per installation`);
    out(`  capped / uncapped: ${((median(capped) / median(uncapped) - 1) * 100).toFixed(1)}% (target <= +10%)`);
    await cap(1 + 2 * PAIRS);
    await vacuum();
    await campaign(stack, `capped ${1 + 2 * PAIRS}/24 h, every one at the cap (skipped)`);
    out();
    await stack.stopWorker();
    await vacuum();
    const receipts = (await stack.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM marketing_receipts`)).rows[0].n;
    const fanOut = await fanOutCost(stack, 5);
    out(`Fan-out statement alone (${receipts} marketing receipts, ${(receipts / INSTALLATIONS).toFixed(1)} per installation; median of 5):`);
    out(
      `  uncapped ${fanOut.uncapped.toFixed(1)} us, capped ${fanOut.capped.toFixed(1)} us per installation: +${(fanOut.capped - fanOut.uncapped).toFixed(1)} us`,
    );
    out(
      `  against the uncapped campaign's PostgreSQL CPU per installation (median ${median(uncapped).toFixed(1)} us): +${(((fanOut.capped - fanOut.uncapped) / median(uncapped)) * 100).toFixed(1)}%`,
    );
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
