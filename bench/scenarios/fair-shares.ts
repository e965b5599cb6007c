/**
 * Fair shares between apps alone (docs/api.md#fair-sharing), as `npm run bench` runs them after
 * its other figures (bench/fair-shares.ts):
 *
 *   npm run build && npx ts-node --transpile-only bench/scenarios/index.ts fair-shares [--broadcast N] [--send N] [--singles N] [--due N]
 */
import { fairSharesLines, measureFairShares } from '../fair-shares';
import { argValue } from '../lib/args';

const BROADCAST = argValue('--broadcast', 100_000);
const SEND = argValue('--send', 10_000);

measureFairShares({
  broadcast: BROADCAST,
  send: SEND,
  singles: argValue('--singles', 50),
  dueSends: argValue('--due', 10_000),
  log: (line) => process.stderr.write(`${line}\n`),
}).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n${fairSharesLines(result)}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
    process.exit(1);
  },
);
