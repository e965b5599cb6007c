/**
 * The full run's API section alone (bench/README.md "The figures", API), for comparing builds
 * without the hour of the full run: the built api on a fresh database of `--installations N`
 * (default 200,000, half as many users), no worker, then `measureApi` (bench/api.ts): VACUUM, then
 * each run warmed up, started by a CHECKPOINT and measured for `--seconds S` (default 20). `--after-sends N` first
 * sends N notifications of 10,000 users each (every installation a delivery row, delivered by a
 * worker, which is stopped after) so that PostgreSQL has the full run's leftovers to settle. Prints
 * the rate and CPU per request (api, load, PostgreSQL, Redis; microseconds) and the full run's ratios.
 *
 *   npm run build && BENCH_PG_OWN_ONLY=1 npx ts-node --transpile-only bench/tools/api-runs.ts [--installations N] [--seconds S] [--after-sends N]
 *
 * `TEST_DIST_DIR` runs another build; `BENCH_API_NODE_ARGS` adds node flags to the api (a CPU profile).
 */
import { measureApi, type HttpResult, type RawResult } from '../api';
import { rawUpdateCpu } from '../harness';
import { measureDelivery } from '../delivery';
import { seedInstallations } from '../lib/seed';
import { startStack } from '../lib/stack';

const argv = process.argv.slice(2);
const value = (flag: string, fallback: number) => (argv.includes(flag) ? Number(argv[argv.indexOf(flag) + 1]) : fallback);
const INSTALLATIONS = value('--installations', 200_000);
const SECONDS = value('--seconds', 20);
const SENDS = value('--after-sends', 0);

function line(name: string, result: HttpResult | RawResult): string {
  const cpu = 'cpuMicrosPerRequest' in result ? result.cpuMicrosPerRequest : result.cpuMicrosPerStatement;
  const cells = [result.perSecond, cpu.service, cpu.harness, cpu.postgres, cpu.redis].map((n) => Math.round(n).toLocaleString('en-US').padStart(8));
  return `${name.padEnd(28)}${cells.join('')}`;
}

async function main(): Promise<void> {
  const stack = await startStack('api-runs');
  const log = (text: string) => process.stderr.write(`[api-runs] ${text}\n`);
  const seeded = await seedInstallations(stack, INSTALLATIONS, INSTALLATIONS / 2);
  await stack.startApi();
  try {
    if (SENDS > 0) {
      await stack.startWorker();
      for (let n = 0; n < SENDS; n++) await measureDelivery(stack, seeded, { requestUsers: 10_000, timeoutMs: 30 * 60_000 });
      await stack.stopWorker();
    }
    const runs = await measureApi(stack, seeded, { seconds: SECONDS }, log);
    // As the full run's targets (bench/harness.ts targets()): PATCH is the api and PostgreSQL, POST adds Redis;
    // the raw UPDATE is PostgreSQL and the pg loop.
    const raw = rawUpdateCpu(runs.rawUpdate);
    const ratio = (name: string, r: HttpResult, redis: boolean) => {
      const cpu = r.cpuMicrosPerRequest.service + r.cpuMicrosPerRequest.postgres + (redis ? r.cpuMicrosPerRequest.redis : 0);
      return `${name} / raw UPDATE CPU: ${Math.round(cpu)}/${Math.round(raw)} = ${(cpu / raw).toFixed(2)}`;
    };
    process.stdout.write(
      [
        `${'run'.padEnd(28)}${['per s', 'api', 'load', 'pg', 'redis'].map((h) => h.padStart(8)).join('')}`,
        line('PATCH', runs.patch),
        line('raw UPDATE', runs.rawUpdate),
        line('PATCH, three properties', runs.patchProperties),
        line('POST (10 users)', runs.post),
        ratio('PATCH', runs.patch, false),
        ratio('PATCH (three properties)', runs.patchProperties, false),
        ratio('POST', runs.post, true),
      ].join('\n') + '\n',
    );
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
