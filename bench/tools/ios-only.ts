/**
 * Issue 32 part 2's A/B measurement (bench/HISTORY.md "CPU per delivery toward the bare client"):
 * the iOS-only send alone, several times on one stack, with the client peer once for the ratio.
 * Run it alternately on two builds (TEST_DIST_DIR) to measure one change.
 *
 *   npx ts-node --transpile-only bench/tools/ios-only.ts [--installations 100000] [--runs 3] [--only users|broadcast] [--platform ios|android|web]
 *
 * `--platform` sends to another platform's installations alone (a quarter of the seed each): the FCM or
 * Web Push request's share of the worker, measured the same way (the client peer stays node-apn's).
 * `--only` runs one of the two sends (and warms up with it), for BENCH_PG_STATEMENT_STATS runs whose
 * statements bench/tools/pg-statements.ts then counts for that send alone.
 */
import { measureClient, measureDelivery } from '../delivery';
import { peerCpu } from '../harness';
import { argText, argValue } from '../lib/args';
import { type CpuUse } from '../lib/cpu';
import { seedInstallations } from '../lib/seed';
import { startStack } from '../lib/stack';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const row = (label: string, cpu: CpuUse, extra = '') =>
  `${label.padEnd(28)}${[cpu.service, cpu.harness, cpu.postgres, cpu.redis].map((v) => v.toFixed(0).padStart(9)).join('')}${extra}`;

async function main(): Promise<void> {
  const installations = argValue('--installations', 100_000);
  const runs = argValue('--runs', 3);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const stack = await startStack('ios');
  try {
    const seeded = await seedInstallations(stack, installations, installations / 2);
    await stack.db.query('VACUUM ANALYZE installations');
    await stack.startApi();
    await stack.startWorker(); // BENCH_WORKER_ENV applies (bench/lib/stack.ts)
    const platform = argText('--platform') ?? 'ios';
    const ios = { options: { platforms: [platform] } };
    const only = argText('--only');
    const sends = (
      [
        [`${platform} only, user ids`, false],
        [`${platform} broadcast`, true],
      ] as const
    ).filter(([, broadcast]) => !only || (only === 'broadcast') === broadcast);
    // A first send warms the worker (JIT, connections, caches) and is not reported.
    await measureDelivery(stack, seeded, { requestUsers: 10_000, timeoutMs: 600_000, body: ios, broadcast: sends[0][1] });
    const lines = [
      `CPU per delivery, us (${installations} installations, ${seeded.iosTokens.length} iOS; sent to ${platform})`,
      `${''.padEnd(28)}${['worker', 'fakes', 'PG', 'Redis'].map((h) => h.padStart(9)).join('')}   service   per s`,
    ];
    const services: number[] = [];
    for (let i = 0; i < runs; i++) {
      for (const [label, broadcast] of sends) {
        log(`${label}, run ${i + 1}`);
        const r = await measureDelivery(stack, seeded, { requestUsers: 10_000, timeoutMs: 600_000, body: ios, broadcast });
        const cpu = r.cpuMicrosPerDelivery;
        const service = cpu.service + cpu.postgres + cpu.redis;
        if (broadcast === sends[0][1]) services.push(service);
        lines.push(row(`${label} ${i + 1}`, cpu, `${service.toFixed(0).padStart(10)}${r.deliveriesPerSecond.toFixed(0).padStart(8)}`));
      }
    }
    const peer = await measureClient(stack, 'peer', seeded.iosTokens, { sessions: 4, streams: 250, chunkSize: 1000, count: seeded.iosTokens.length });
    const peerMicros = peerCpu(peer);
    lines.push(
      `peer client ${peerMicros.toFixed(0)} us; ${sends[0][0]}, median ${median(services).toFixed(0)} us: ${(median(services) / peerMicros).toFixed(2)}`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
