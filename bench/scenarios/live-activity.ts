import { randomBytes } from 'node:crypto';
import { startStack, Stack } from '../lib/stack';

/**
 * Live Activity update latency (docs/api.md#live-activity-updates, issue 30): from the POST of an
 * update until the fake APNs receives it, against a send to one device (POST /notifications for a
 * user with one iOS installation) until the fake receives that, on the built api and worker
 * processes. One request at a time, alternating, so neither waits behind the other.
 *
 *   npm run build && npx ts-node --transpile-only bench/scenarios/index.ts live-activity [samples]   (default 200)
 */

const samples = Number(process.argv[2] ?? 200);
const hex = () => randomBytes(32).toString('hex');

async function api(stack: Stack, method: string, path: string, body: unknown): Promise<Record<string, any>> {
  const res = await fetch(`http://127.0.0.1:${stack.apiPort}${path}`, {
    method,
    headers: { Authorization: `Bearer ${stack.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, any>;
}

/** Milliseconds from now until the fake APNs has received one more request for `token`. */
async function timed(stack: Stack, token: string, send: () => Promise<unknown>): Promise<number> {
  const before = stack.apns.requests.filter((r) => r.token === token).length;
  const started = Date.now();
  await send();
  for (;;) {
    const arrived = stack.apns.requests.filter((r) => r.token === token);
    if (arrived.length > before) return arrived[arrived.length - 1].at.getTime() - started;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

function summary(values: number[]): { p50: number; p95: number; mean: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p95: at(0.95), mean: Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10) / 10 };
}

async function main(): Promise<void> {
  const stack = await startStack('live-activity');
  try {
    await stack.startApi();
    await stack.startWorker();
    const deviceToken = hex();
    await api(stack, 'PUT', '/api/v1/installations/bench-la-device', { platform: 'ios', push_token: deviceToken, user_id: 'bench-la-user' });
    const updateToken = hex();
    await api(stack, 'PUT', '/api/v1/live-activities/bench-activity', {
      installation_id: 'bench-la-device',
      attributes_type: 'BenchAttributes',
      push_token: updateToken,
    });
    const update = () => api(stack, 'POST', '/api/v1/live-activities/bench-activity/updates', { event: 'update', content_state: { n: Date.now() } });
    const send = () =>
      api(stack, 'POST', '/api/v1/notifications', { recipients: { user_ids: ['bench-la-user'] }, notification: { title: 'Bench', body: 'One device' } });
    // Warm-up: connections, prepared statements, the provider token.
    for (let n = 0; n < 10; n++) {
      await timed(stack, updateToken, update);
      await timed(stack, deviceToken, send);
    }
    const updates: number[] = [];
    const sends: number[] = [];
    for (let n = 0; n < samples; n++) {
      updates.push(await timed(stack, updateToken, update));
      sends.push(await timed(stack, deviceToken, send));
    }
    const result = { samples, liveActivityUpdateMs: summary(updates), singleDeviceSendMs: summary(sends) };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
