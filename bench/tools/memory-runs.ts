/**
 * The full run's memory runs alone (bench/README.md "The figures", memory), for comparing builds
 * without the hour of the full run: the built api and a fresh worker on a fresh database of
 * `--installations N` (default 300,000, one user each), then the fan-out to every user (requests of
 * 10,000) and the broadcast to every installation, each with a fresh worker. Prints the worker's RSS
 * before each send, its peak, its growth per 100,000 deliveries past the first 10% and its CPU per delivery.
 *
 *   npm run build && BENCH_PG_OWN_ONLY=1 npx ts-node --transpile-only bench/tools/memory-runs.ts [--installations N]
 *
 * `TEST_DIST_DIR` runs another build, `BENCH_WORKER_NODE_ARGS` adds node flags to the worker.
 */
import { FULL, memoryRun } from '../harness';
import { seedInstallations } from '../lib/seed';
import { startStack } from '../lib/stack';

const argv = process.argv.slice(2);
const INSTALLATIONS = argv.includes('--installations') ? Number(argv[argv.indexOf('--installations') + 1]) : 300_000;

async function main(): Promise<void> {
  const stack = await startStack('memory-runs');
  const log = (line: string) => process.stderr.write(`[memory-runs] ${line}\n`);
  const options = { ...FULL, memoryInstallations: INSTALLATIONS, log };
  try {
    const seeded = await seedInstallations(stack, INSTALLATIONS, INSTALLATIONS, 'm');
    await stack.db.query('VACUUM ANALYZE installations');
    await stack.startApi();
    const out: string[] = [];
    for (const send of ['users', 'broadcast'] as const) {
      const run = await memoryRun(stack, options, seeded, send);
      const rate = run.delivery.deliveriesPerSecond.toFixed(0);
      const cpu = run.delivery.cpuMicrosPerDelivery;
      out.push(
        `${send.padEnd(10)} before ${run.baselineRssMb.toFixed(0)} MB, peak ${run.peakRssMb.toFixed(0)} MB, growth ${run.growthMbPer100k.toFixed(2)} MB/100k, ${rate} deliveries/s, ` +
          `worker ${cpu.service.toFixed(0)} us and PostgreSQL ${cpu.postgres.toFixed(0)} us a delivery`,
      );
    }
    process.stdout.write(`${out.join('\n')}\n`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
