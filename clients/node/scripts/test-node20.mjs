// `npm run test:node20`: the SDK's unit tests on Node 20 (the oldest it supports), with the machine's
// /usr/bin/node when it is a Node 20 (CI's Node 24 runs `npm test`). Without one it says so and passes.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE = process.env.NODE20 ?? '/usr/bin/node';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const version = existsSync(NODE) ? execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim() : null;
if (!version?.startsWith('v20.')) {
  process.stderr.write(`test:node20: no Node 20 at ${NODE} (${version ?? 'absent'}); skipped\n`);
  process.exit(0);
}
process.stderr.write(`test:node20: the unit tests on ${NODE} ${version}\n`);
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const run = spawnSync(NODE, [vitest, 'run', 'src/client.test.ts'], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
