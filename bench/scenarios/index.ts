/**
 * The scenarios that guard a documented promise, behind one entry point (bench/README.md "Scenarios"):
 *
 *   npm run build && npx ts-node --transpile-only bench/scenarios/index.ts <name> [options]
 *
 * Each runs on its own, prints a report on stdout and exits; `index.ts` alone lists them.
 */
import { join } from 'node:path';

/** Name -> what it measures and the promise it guards. */
export const SCENARIOS: Record<string, string> = {
  'pacing-latency': 'a single-device send beside a throttled 1M broadcast (docs/api.md#pacing: other notifications are not slowed)',
  'small-send-burst': 'a burst of one-time codes, sends per second and POST-to-arrival p50/p99 (docs/api.md#small-sends)',
  pacing: "throttle accuracy and a frequency cap's PostgreSQL CPU (docs/api.md#pacing)",
  audiences: 'audience filters on 1M installations: count, fan-out rate, filter vs tag (docs/api.md#audience-filters)',
  retention: 'the weekly purge on 1M deliveries: time, locks, a claim\'s wait; --migration (docs/operations.md "Data retention")',
  trace: 'the delivery trace on a notification of 1M deliveries (docs/api.md#delivery-trace)',
  'live-activity': 'Live Activity update latency against a single-device send (docs/api.md#live-activity-updates)',
  inbox: 'a 1M broadcast with the inbox channel: store rate vs provider rate, worker RSS; 1,000 streams on one api (docs/api.md#inbox)',
  sandbox: "a send through `pns sandbox` against the bench's own fakes: at least 80% of their rate (issue 33)",
  import: 'pns import of a 1M-line OneSignal export, then again: lines/s (>= 5,000), RSS flat, the re-run changes nothing (docs/api.md#import)',
  'fair-shares': "app B's send during app A's broadcast, single-device sends during it, sends due at one instant (docs/api.md#fair-sharing)",
  'worst-filter': "the worst filter the validator accepts: its count on 1M installations (aim <= 1 s), another app's p99 while 24 clients count it (issue 51)",
  templates: 'a broadcast from a one-variable template against the same plain: CPU per delivery (<= 1.15x), worker RSS (docs/api.md#liquid)',
  huawei: 'a Huawei send against an FCM send of as many installations: at least 80% of its rate (issue 55, docs/api.md#huawei)',
};

function usage(): never {
  const width = Math.max(...Object.keys(SCENARIOS).map((name) => name.length));
  const lines = Object.entries(SCENARIOS).map(([name, what]) => `  ${name.padEnd(width)}  ${what}`);
  process.stderr.write(`usage: bench/scenarios/index.ts <name> [options]\n${lines.join('\n')}\n`);
  process.exit(2);
}

const [name, ...rest] = process.argv.slice(2);
if (!name || !(name in SCENARIOS)) usage();
// Each scenario reads its options from process.argv as when run directly, then runs on load.
const file = join(__dirname, `${name}.ts`);
process.argv = [process.argv[0], file, ...rest];
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(file);
