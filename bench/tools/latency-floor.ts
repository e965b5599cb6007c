/**
 * A single-device send against the floor of the machine (bench/HISTORY.md "The floor of a
 * single-device send"): our built api and two worker processes (as bench/tools/idle-latency.ts runs
 * them) and bench/lib/floor-pipeline.ts, the fewest hops a durable 202 and a separate worker can
 * make, sending to the same fake APNs on its own thread, timed by the same client thread from the
 * POST to the message's arrival. Idle; the four pipelines take turns, one send each, so the
 * machine's drift falls on all of them alike. With `--busy N`, N installations are seeded and the
 * same samples are taken again while one broadcast (`recipients.all`, every platform, as fast as it
 * goes, as the full bench's latency section) is delivered by our worker. Prints, in ms, p50 / p90 /
 * p99 / max of each pipeline's POST to arrival (e2e) and POST to 202 (post):
 *
 *   ours           POST /api/v1/notifications with an Idempotency-Key, as the full bench sends it;
 *   ours-no-key    the same without the key (one statement to PostgreSQL instead of three);
 *   floor          the floor, its INSERT's commit waiting for the WAL flush (a durable 202);
 *   floor-no-flush the floor without that wait.
 *
 *   npm run build && npx ts-node --transpile-only bench/tools/latency-floor.ts [samples] [--busy N]
 */
import { LatencyProbe, quantiles, type Quantiles, startBroadcast, startProbedWorker, takeTurns } from '../latency';
import { argValue } from '../lib/args';
import { startFloor, type Floor } from '../lib/floor';
import { seedInstallations } from '../lib/seed';
import { startStack } from '../lib/stack';

const args = process.argv.slice(2);
const SAMPLES = Number(args.find((arg, n) => !arg.startsWith('--') && args[n - 1] !== '--busy') ?? 300);
const BUSY = argValue('--busy', 0);

async function main(): Promise<void> {
  const stack = await startStack('latency-floor');
  await seedInstallations(stack, Math.max(2000, BUSY), Math.max(2000, BUSY), 'p');
  await stack.startApi();
  const workers = await startProbedWorker(stack, 2);
  const probe = new LatencyProbe(stack, workers.apns);
  let floor: Floor | undefined;
  try {
    floor = await startFloor(stack, workers.apns.baseUrl);
    const { url, urlNoFlush } = floor;
    const pipelines = {
      ours: () => probe.timed(true),
      'ours-no-key': () => probe.timed(false),
      floor: () => probe.timedVia(url),
      'floor-no-flush': () => probe.timedVia(urlNoFlush),
    };
    await probe.start(30);
    for (let n = 0; n < 30; n++) for (const send of Object.values(pipelines)) await send();
    const line = (q: Quantiles) => [q.p50, q.p90, q.p99, q.max].map((ms) => ms.toFixed(1).padStart(6)).join(' /');
    const measure = async (label: string) => {
      const times = await takeTurns(probe, pipelines, SAMPLES);
      const lines = [`${label}: ${SAMPLES} sends each, taking turns; ms p50 / p90 / p99 / max`];
      for (const [name, { e2e, post }] of Object.entries(times)) {
        lines.push(`${name.padEnd(15)} e2e  ${line(quantiles(e2e))}`);
        lines.push(`${''.padEnd(15)} post ${line(quantiles(post))}`);
      }
      process.stdout.write(lines.join('\n') + '\n');
    };
    await measure('idle');
    if (BUSY > 0) {
      await startBroadcast(probe, 100);
      const before = probe.others;
      await measure(`during a broadcast to ${BUSY + 1} installations`);
      const during = probe.others - before;
      process.stdout.write(
        `${during} broadcast messages arrived meanwhile; ${probe.others < BUSY ? 'the broadcast outlasted every sample' : 'THE BROADCAST ENDED BEFORE THE LAST SAMPLE'}\n`,
      );
    }
  } finally {
    probe.stop();
    await floor?.stop();
    await workers.stop();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
