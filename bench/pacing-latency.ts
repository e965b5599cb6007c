/**
 * Issue 29's latency check (docs/api.md#pacing: "other notifications are not slowed"), on the built
 * service (bench/lib/stack.ts: api and worker processes, loopback fakes, a fresh database):
 *
 *   1. `--installations` installations (default 1,000,000) are seeded, and one more iOS device;
 *   2. idle: `--samples` single-device transactional sends to that device (default 50), one at a
 *      time, each timed from its POST to its arrival at the fake APNs;
 *   3. busy: a marketing broadcast to every installation, throttled to `--throttle` a minute
 *      (default 120,000), is accepted and left running; once the fake providers have received its
 *      first messages, the same samples again; then it is cancelled.
 *
 * It prints p50, p90, p99 and the largest of both, and the busy p99 against the idle p99 + 10 ms.
 *
 *   npm run build && npx ts-node --transpile-only bench/pacing-latency.ts [--installations N] [--samples N] [--throttle N]
 */
import { randomBytes } from 'node:crypto';
import { seedInstallations } from './lib/seed';
import { startStack, Stack } from './lib/stack';

const argValue = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const INSTALLATIONS = argValue('--installations', 1_000_000);
const SAMPLES = argValue('--samples', 50);
const THROTTLE = argValue('--throttle', 120_000);
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

async function api(stack: Stack, method: string, path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(`http://127.0.0.1:${stack.apiPort}${path}`, {
    method,
    headers: { Authorization: `Bearer ${stack.token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

function quantiles(values: number[]): { p50: number; p90: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] };
}

async function main(): Promise<void> {
  const stack = await startStack('pacing-latency');
  try {
    log(`seeding ${INSTALLATIONS} installations`);
    await seedInstallations(stack, INSTALLATIONS, INSTALLATIONS, 'p');
    await stack.db.query('VACUUM ANALYZE installations');
    await stack.startApi();
    await stack.startWorker();

    // The fakes keep a short log (a million requests would fill the bench's memory); the probe's
    // arrivals are caught as they come.
    const probe = randomBytes(32).toString('hex');
    let arrived: (() => void) | null = null;
    let broadcastMessages = 0;
    stack.apns.logTo((record) => {
      if (record.token === probe) arrived?.();
      else broadcastMessages++;
    }, 1000);
    stack.fcm.logTo(() => broadcastMessages++, 1000);
    stack.web.logTo(() => broadcastMessages++, 1000);

    await api(stack, 'PUT', '/api/v1/installations/latency-probe', { platform: 'ios', push_token: probe, user_id: 'latency-probe' });
    const timed = async (): Promise<number> => {
      const landed = new Promise<void>((resolve) => (arrived = resolve));
      const started = performance.now();
      await api(stack, 'POST', '/api/v1/notifications', { recipients: { user_ids: ['latency-probe'] }, notification: { title: 'Code', body: '123456' } });
      await landed;
      return performance.now() - started;
    };
    for (let n = 0; n < 10; n++) await timed(); // connections, prepared statements, the provider token
    const idle: number[] = [];
    for (let n = 0; n < SAMPLES; n++) idle.push(await timed());
    log(`idle: ${JSON.stringify(quantiles(idle))}`);

    const broadcast = await api(stack, 'POST', '/api/v1/notifications', {
      recipients: { all: true },
      notification: { title: 'Weekend sale', body: '20% off' },
      options: { category: 'marketing', throttle_per_minute: THROTTLE },
    });
    const id = broadcast.data.id as string;
    while (broadcastMessages < 100) await new Promise((resolve) => setTimeout(resolve, 50));
    log(`broadcast ${id} running (${broadcastMessages} messages so far)`);
    const busy: number[] = [];
    for (let n = 0; n < SAMPLES; n++) busy.push(await timed());
    const during = broadcastMessages;
    await api(stack, 'POST', `/api/v1/notifications/${id}/cancel`);
    const result = {
      installations: INSTALLATIONS,
      samples: SAMPLES,
      throttlePerMinute: THROTTLE,
      broadcastMessagesWhileMeasured: during,
      idleMs: quantiles(idle),
      busyMs: quantiles(busy),
    };
    const limit = result.idleMs.p99 + 10;
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `busy p99 ${result.busyMs.p99.toFixed(1)} ms against idle p99 + 10 = ${limit.toFixed(1)} ms: ${result.busyMs.p99 <= limit ? 'met' : 'MISSED'}\n`,
    );
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
