/**
 * The inbox (docs/api.md#inbox; bench/inbox.ts says how each figure is taken): a broadcast to
 * `--installations` users (default 1,000,000, one installation each) with
 * `options.channels: ["push", "inbox"]`, the rate its inbox messages were stored at against the
 * rate it reached the providers, the worker's RSS (start, peak, end, growth); then `--streams`
 * inbox streams (default 1,000) on one api process (bench/HISTORY.md "The inbox"). `--push-only`
 * sends a push-only broadcast to the same users first, to compare. `npm run bench` runs the same
 * measurement at `--inbox N` users.
 *
 *   npm run build && npx ts-node --transpile-only bench/scenarios/index.ts inbox [--installations N] [--streams N] [--push-only]
 */
import { measureInbox } from '../inbox';
import { argValue } from '../lib/args';

async function main(): Promise<void> {
  const started = Date.now();
  const result = await measureInbox({
    users: argValue('--installations', 1_000_000),
    streams: argValue('--streams', 1000),
    timeoutMs: 60 * 60_000,
    pushOnly: process.argv.includes('--push-only'),
    log: (line) => process.stderr.write(`[inbox ${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
    process.exit(1);
  },
);
