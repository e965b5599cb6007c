/**
 * npm run bench [-- --quick] [-- --installations N --users N --memory N --api-seconds S --no-parse --parse-timeout S --inbox N --inbox-streams N --fair-broadcast N --worst-filter N]
 * Builds first (see package.json), then measures the built service; see bench/README.md.
 */
import { join } from 'node:path';
import { embeddedStartLine, measureEmbeddedStart } from './embedded-start';
import { fairSharesLines, measureFairShares } from './fair-shares';
import { FULL, QUICK, runBench, type BenchOptions } from './harness';
import { table, writeResults } from './report';
import { measureWorstFilter, worstFilterLines } from './worst-filter';

function parseArgs(argv: string[]): Omit<BenchOptions, 'log'> & { out: string } {
  const options = { ...(argv.includes('--quick') ? QUICK : FULL), out: join(__dirname, 'results') };
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const number = (flag: string, apply: (n: number) => void) => {
    const v = value(flag);
    if (v !== undefined) apply(Number(v));
  };
  number('--installations', (n) => (options.installations = n));
  number('--users', (n) => (options.users = n));
  number('--request-users', (n) => (options.requestUsers = n));
  // A memory run added to --quick keeps the full run's deadline: a million deliveries take minutes.
  number('--memory', (n) => {
    options.memoryInstallations = n;
    options.timeoutMs = Math.max(options.timeoutMs, FULL.timeoutMs);
  });
  number('--api-seconds', (n) => (options.apiSeconds = n));
  // The inbox run's users (0 skips it), with the full run's deadline, as --memory.
  number('--inbox', (n) => {
    options.inboxUsers = n;
    options.timeoutMs = Math.max(options.timeoutMs, FULL.timeoutMs);
  });
  number('--inbox-streams', (n) => (options.inboxStreams = n));
  number('--parse-timeout', (n) => (options.parseTimeoutMs = n * 1000));
  if (argv.includes('--no-parse')) options.parse = false;
  options.out = value('--out') ?? options.out;
  return options;
}

async function main(): Promise<void> {
  const { out, ...options } = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const results = await runBench({ ...options, log: (line) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`) });
  const embeddedStart = await measureEmbeddedStart();
  // Fair shares (bench/README.md): A's broadcast (0 skips it), B's send and the due sends a tenth of it, 10,000 at most.
  const argv = process.argv.slice(2);
  const flag = argv.indexOf('--fair-broadcast');
  const broadcast = flag >= 0 ? Number(argv[flag + 1]) : argv.includes('--quick') ? 20_000 : 100_000;
  const log = (line: string) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`);
  const size = Math.min(10_000, Math.round(broadcast / 10));
  const fairShares =
    broadcast > 0 ? await measureFairShares({ broadcast, send: size, singles: argv.includes('--quick') ? 20 : 50, dueSends: size, log }) : undefined;
  // The worst filter the validator accepts (bench/worst-filter.ts): 1,000,000 installations, 50,000 with --quick, 0 skips it.
  const worstFlag = argv.indexOf('--worst-filter');
  const worstInstallations = worstFlag >= 0 ? Number(argv[worstFlag + 1]) : argv.includes('--quick') ? 50_000 : 1_000_000;
  const worstFilter =
    worstInstallations > 0 ? await measureWorstFilter({ installations: worstInstallations, seconds: argv.includes('--quick') ? 5 : 15, log }) : undefined;
  Object.assign(results, { embeddedStart, fairShares, worstFilter });
  process.stdout.write(
    `${table(results)}\n${embeddedStartLine(embeddedStart)}\n${fairShares ? `${fairSharesLines(fairShares)}\n` : ''}${worstFilter ? `${worstFilterLines(worstFilter)}\n` : ''}`,
  );
  process.stdout.write(`\nwritten to ${writeResults(results, out, process.argv.includes('--quick') ? 'quick' : undefined)}\n`);
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
