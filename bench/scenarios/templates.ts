/**
 * npx ts-node --transpile-only bench/scenarios/index.ts templates [--installations N --rounds N]
 * A broadcast from a one-variable template against the same broadcast plain, alternating on one
 * stack (bench/templates.ts): CPU per delivery and the worker's peak RSS. docs/api.md#liquid: the
 * template send costs at most 1.15 times the plain one per delivery, and the worker's memory stays flat.
 */
import { FULL } from '../harness';
import { seedInstallations } from '../lib/seed';
import { startStack } from '../lib/stack';
import { measureTemplatePair } from '../templates';

const argv = process.argv.slice(2);
const option = (flag: string, fallback: number) => (argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback);
const INSTALLATIONS = option('--installations', 1_000_000);
const ROUNDS = option('--rounds', 2);
const log = (line: string) => process.stderr.write(`[bench:templates] ${line}\n`);

async function main(): Promise<void> {
  log('starting fake providers, database, api and worker');
  const stack = await startStack('templates');
  try {
    const seeded = await seedInstallations(stack, INSTALLATIONS, INSTALLATIONS / 2);
    await stack.db.query('VACUUM ANALYZE installations');
    await stack.startApi();
    await stack.startWorker();
    const pair = await measureTemplatePair(stack, seeded, { rounds: ROUNDS, timeoutMs: FULL.timeoutMs, log });
    process.stdout.write(
      [
        `templates: ${pair.deliveries} deliveries a send, ${pair.rounds} rounds (medians)`,
        `  plain CPU per delivery     ${pair.plainCpuMicros.toFixed(1)} us, worker peak RSS ${pair.plainPeakRssMb.toFixed(0)} MB`,
        `  template CPU per delivery  ${pair.templateCpuMicros.toFixed(1)} us, worker peak RSS ${pair.templatePeakRssMb.toFixed(0)} MB`,
        `  template / plain           ${pair.ratio.toFixed(3)} (target <= 1.15); each round ${pair.roundRatios.map((r) => r.toFixed(3)).join(', ')}`,
      ].join('\n') + '\n',
    );
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
