/**
 * The worst filter the validator accepts, through the API (issue 51 "Measured", bench/worst-filter.ts),
 * as `npm run bench` runs it after its other figures:
 *
 *   npm run build && npx ts-node --transpile-only bench/scenarios/index.ts worst-filter [--installations N] [--seconds S]
 */
import { argValue } from '../lib/args';
import { measureWorstFilter, worstFilterLines } from '../worst-filter';

measureWorstFilter({
  installations: argValue('--installations', 1_000_000),
  seconds: argValue('--seconds', 15),
  log: (line) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`),
}).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n${worstFilterLines(result)}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
    process.exit(1);
  },
);
