/**
 * Single-device send latency on an idle service, split into its parts (bench/HISTORY.md "Claims
 * without the flush"): on the built service (bench/lib/stack.ts: api, two worker processes as
 * docs/operations.md "A worker process per lane" runs them, loopback fakes, a fresh database with
 * 2,000 installations), `samples` sends (default 300) to one iOS device, one at a time after 30 for
 * warm-up, each timed from its POST to its arrival at the fake APNs (bench/latency.ts). Prints, in
 * ms, p50 / p90 / p99 / max of:
 *
 *   e2e        POST to arrival;
 *   post       POST to its 202 (the api's share);
 *   get-app    as many `GET /api/v1/app`, the floor of an authenticated request through the same client;
 *   after-202  e2e minus post: the queue hop, the claim and the request to the provider.
 *
 *   npm run build && npx ts-node --transpile-only bench/tools/idle-latency.ts [samples] [--without-key]
 *
 * `--without-key`: the sends carry no Idempotency-Key (by default each does, as bench/latency.ts sends them).
 *
 * With `BENCH_API_NODE_ARGS="-r probe.js"` a probe preloaded in the api can time each statement of a
 * POST (bench/tools/statement-probe.js).
 */
import { LatencyProbe, quantiles, type Quantiles, startProbedWorker } from '../latency';
import { seedInstallations } from '../lib/seed';
import { startStack } from '../lib/stack';

const SAMPLES = Number(process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 300);
const KEYED = !process.argv.includes('--without-key');

async function main(): Promise<void> {
  const stack = await startStack('idle-latency');
  await seedInstallations(stack, 2000, 2000, 'p');
  await stack.startApi();
  const workers = await startProbedWorker(stack, 2);
  const probe = new LatencyProbe(stack, workers.apns, KEYED);
  try {
    await probe.start(30);
    probe.answered.length = 0;
    const e2e = await probe.samples(SAMPLES);
    const post = probe.answered.splice(0);
    const gets: number[] = [];
    for (let n = 0; n < SAMPLES; n++) {
      const started = performance.now();
      await probe.api('GET', '/api/v1/app');
      gets.push(performance.now() - started);
    }
    const line = (q: Quantiles) => [q.p50, q.p90, q.p99, q.max].map((ms) => ms.toFixed(1)).join(' / ');
    process.stdout.write(
      [
        `e2e ${line(quantiles(e2e))}`,
        `post ${line(quantiles(post))}`,
        `get-app ${line(quantiles(gets))}`,
        `after-202 ${line(quantiles(e2e.map((ms, n) => ms - post[n])))}`,
      ].join('\n') + '\n',
    );
  } finally {
    probe.stop();
    await workers.stop();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
