import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertBuilt, BUILT_MAIN, ChildEnv, inParallel, lines, runNode, RunResult, TEST_APP_KEY } from '../support/processes';

/**
 * docs/api.md#processes: configuration is validated at start; a bad or missing value stops the
 * built service (`node dist/src/main.js`) with exit code 1 and one line naming the variable.
 * Nothing here needs PostgreSQL or Redis: the process must stop before connecting to anything
 * (both URLs point at ports where nothing listens, so a process that tried would hang, not pass).
 */
jest.setTimeout(60_000);

const UNREACHABLE = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:1/push_test_never',
  REDIS_URL: 'redis://127.0.0.1:1',
};

const cases: { variable: string; env: ChildEnv }[] = [
  { variable: 'APP_KEY', env: { APP_KEY: undefined } },
  { variable: 'APP_KEY', env: { APP_KEY: '' } },
  { variable: 'APP_KEY', env: { APP_KEY: 'changeme' } },
  { variable: 'APP_KEY', env: { APP_KEY: Buffer.alloc(16, 7).toString('base64') } },
  { variable: 'PORT', env: { PORT: 'http' } },
  { variable: 'PORT', env: { PORT: '70000' } },
  { variable: 'APP_MODE', env: { APP_MODE: 'scheduler' } },
  { variable: 'DATABASE_URL', env: { DATABASE_URL: 'mysql://root@127.0.0.1/push' } },
  { variable: 'DATABASE_URL', env: { DATABASE_URL: '127.0.0.1:5432/push' } },
  { variable: 'REDIS_URL', env: { REDIS_URL: 'localhost' } },
  { variable: 'DELIVERY_MAX_ATTEMPTS', env: { DELIVERY_MAX_ATTEMPTS: '0' } },
  { variable: 'DELIVERY_MAX_ATTEMPTS', env: { DELIVERY_MAX_ATTEMPTS: 'lots' } },
  { variable: 'DELIVERY_RETRY_BASE_MS', env: { DELIVERY_RETRY_BASE_MS: '-100' } },
  { variable: 'FCM_URL', env: { FCM_URL: 'fcm.googleapis.com' } },
  { variable: 'LOG_LEVEL', env: { LOG_LEVEL: 'verbose-ish' } },
];

const label = (c: (typeof cases)[number]) =>
  Object.entries(c.env)
    .map(([key, value]) => (value === undefined ? `${key} unset` : `${key}=${JSON.stringify(value)}`))
    .join(' ');

describe('configuration errors stop the built service (docs/api.md#processes and docs/api.md#environment)', () => {
  let results: RunResult[];
  let dir: string;

  beforeAll(async () => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'pns-config-'));
    // Each start costs about a second of CPU, so they run side by side. NODE_ENV=test: no .env is read.
    results = await inParallel(
      cases.map(
        (c) => () =>
          runNode(BUILT_MAIN, [], { env: { ...UNREACHABLE, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test', APP_MODE: 'all', ...c.env }, timeoutMs: 45_000 }),
      ),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(cases.map((c, i) => [label(c), c.variable, i] as const))('%s: exit 1, one stderr line naming %s', (_label, variable, i) => {
    const result = results[i];
    expect({ code: result.code, signal: result.signal, stdout: result.stdout }).toEqual({ code: 1, signal: null, stdout: '' });
    expect(lines(result.stderr)).toEqual([expect.stringMatching(new RegExp(`\\b${variable}\\b`))]);
  });

  it('reads .env from the working directory when NODE_ENV is not test', async () => {
    writeFileSync(join(dir, '.env'), `APP_KEY=${TEST_APP_KEY}\nAPP_MODE=sideways\n`);
    const result = await runNode(BUILT_MAIN, [], { env: { ...UNREACHABLE, NODE_ENV: undefined, APP_KEY: undefined }, cwd: dir });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(lines(result.stderr)).toEqual([expect.stringMatching(/\bAPP_MODE\b/)]);
  });

  it('a variable that is already set wins over .env', async () => {
    writeFileSync(join(dir, '.env'), `APP_KEY=${TEST_APP_KEY}\nPORT=not-a-port\n`);
    // If .env won, PORT would be reported; since PORT is set, the bad DELIVERY_MAX_ATTEMPTS is.
    const result = await runNode(BUILT_MAIN, [], {
      env: { ...UNREACHABLE, NODE_ENV: undefined, APP_KEY: undefined, PORT: '3999', DELIVERY_MAX_ATTEMPTS: '0' },
      cwd: dir,
    });
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([expect.stringMatching(/\bDELIVERY_MAX_ATTEMPTS\b/)]);
  });

  it('NODE_ENV=test ignores .env', async () => {
    writeFileSync(join(dir, '.env'), `APP_KEY=${TEST_APP_KEY}\n`);
    const result = await runNode(BUILT_MAIN, [], { env: { ...UNREACHABLE, NODE_ENV: 'test', APP_KEY: undefined }, cwd: dir });
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([expect.stringMatching(/\bAPP_KEY\b/)]);
  });
});
