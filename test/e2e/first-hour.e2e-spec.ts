import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { ABILITIES } from '../../src/auth/abilities';
import { assertBuilt, childEnv, lines, ROOT, runCli, RunResult, TEST_APP_KEY } from '../support/processes';
import { databaseUrl, withAdminClient } from '../support/services';
import { createTestDatabase, dropTestDatabase, testDatabaseName } from '../support/test-database';

/**
 * The newcomer's first hour (issue 31, "Set-up that tells the truth"): an old Node is named at
 * once, `npm test` checks its services before building, and the CLI's help, errors and set-up say
 * what to do next.
 */
jest.setTimeout(120_000);

const run = promisify(execFile);
const PINNED_MAJOR = Number(readFileSync(join(ROOT, '.node-version'), 'utf8').trim().split('.')[0]);
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** The machine's own `node` and `npm`: the first on PATH outside the pinned Node that .ci/node.sh adds. */
function machinePath(): string {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes('/.node/'))
    .join(delimiter);
}

async function machineNodeMajor(path: string): Promise<number> {
  const { stdout } = await run('node', ['--version'], { env: { ...childEnv({}), PATH: path } });
  return Number(stdout.trim().replace(/^v/, '').split('.')[0]);
}

describe('an older Node is named at once (README.md "Node 24")', () => {
  let dir: string;
  const path = machinePath();

  beforeAll(async () => {
    // The guard is what runs, in a directory that has nothing else: if it let the command through,
    // `npm install` would find no dependency to fetch and the build nothing to build.
    dir = mkdtempSync(join(tmpdir(), 'pns-node-'));
    mkdirSync(join(dir, 'scripts'));
    copyFileSync(join(ROOT, 'scripts/check-node.js'), join(dir, 'scripts/check-node.js'));
    copyFileSync(join(ROOT, '.node-version'), join(dir, '.node-version'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'node-guard', private: true, scripts: PACKAGE.scripts }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['setup', 'start', 'test'])('`npm run %s` on the machine Node stops with one line naming the Node needed', async (script) => {
    const major = await machineNodeMajor(path);
    // This machine's own Node (Debian's) is older than the pinned one: that is the case under test.
    expect(major).toBeLessThan(PINNED_MAJOR);
    const result = await run('npm', ['run', script], { cwd: dir, env: { ...childEnv({}), PATH: path } }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^Node ${PINNED_MAJOR} is needed, this is Node ${major}\\.\\d+\\.\\d+: run \`source \\.ci/node\\.sh\``)),
    ]);
    // Stopped before anything else ran.
    expect(readdirSync(dir).sort()).toEqual(['.node-version', 'package.json', 'scripts']);
  });

  it('guards each of the three scripts first', () => {
    for (const script of ['setup', 'start', 'test']) expect(PACKAGE.scripts[script].startsWith('node scripts/check-node.js && ')).toBe(true);
  });
});

describe('`npm test` checks PostgreSQL, Redis and Chromium before building', () => {
  const check = (env: Record<string, string | undefined>) =>
    run(join(ROOT, 'node_modules/.bin/ts-node'), ['--transpile-only', 'scripts/check-test-prerequisites.ts'], { cwd: ROOT, env: childEnv(env) }).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );

  it('runs right after the Node check, before the build', () => {
    expect(PACKAGE.scripts.test.startsWith('node scripts/check-node.js && ts-node --transpile-only scripts/check-test-prerequisites.ts && npm run build')).toBe(
      true,
    );
  });

  it('passes silently when all three are there', async () => {
    expect(await check({})).toEqual({ code: 0, stderr: '' });
  });

  it('stops with one line per missing piece and how to get it', async () => {
    const started = process.hrtime.bigint();
    const result = await check({
      TEST_DATABASE_ADMIN_URL: 'postgres://postgres@127.0.0.1:1/postgres',
      REDIS_URL: 'redis://127.0.0.1:1',
      CHROMIUM_PATH: '/nonexistent/chromium',
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      expect.stringMatching(/^PostgreSQL is not reachable at 127\.0\.0\.1:1 as user postgres \(ECONNREFUSED\): start it \(apt-get install postgresql/),
      expect.stringMatching(/^Redis is not reachable at redis:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\): start it \(apt-get install redis-server/),
      'Chromium is missing at /nonexistent/chromium (the browser tests drive it): apt-get install chromium, or set CHROMIUM_PATH.',
    ]);
    // Seconds, not the minutes of a build and a test run (ts-node's start included).
    expect(seconds).toBeLessThan(20);
  });
});

describe('the CLI says what to do next (docs/api.md#cli)', () => {
  let database: { name: string; url: string };
  const created: string[] = [];
  const cli = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(args, { env: { DATABASE_URL: database.url, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test', ...env } });
  const json = (result: RunResult): any => {
    if (result.code !== 0) throw new Error(`command failed (${result.code}):\n${result.stderr}`);
    return JSON.parse(result.stdout);
  };

  beforeAll(async () => {
    assertBuilt();
    database = await createTestDatabase();
    created.push(database.name);
  });
  afterAll(async () => {
    await Promise.all(created.map((name) => dropTestDatabase(name)));
  });

  it('help says `pns` and needs neither a database nor APP_KEY', async () => {
    const unreachable = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/push_test_none', APP_KEY: undefined };
    const help = await cli(['--help'], unreachable);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: pns \[options\] \[command\]/);
    expect(help.stdout).toContain('credentials:check');
    expect(help.stdout).toMatch(/^\s+sandbox \[options\]/m);
    const sandboxHelp = await cli(['sandbox', '--help'], unreachable);
    expect([sandboxHelp.code, sandboxHelp.stdout]).toEqual([0, expect.stringContaining('--inbox-limit <n>')]);
    const commandHelp = await cli(['tokens:create', '--help'], unreachable);
    expect(commandHelp.stdout).toMatch(/^Usage: pns tokens:create \[options\]/);
    // Not even setup's help touches .env or the database.
    const dir = mkdtempSync(join(tmpdir(), 'pns-help-'));
    try {
      const setupHelp = await runCli(['setup', '--help'], { env: { ...unreachable, NODE_ENV: undefined }, cwd: dir });
      expect([setupHelp.code, setupHelp.stdout, setupHelp.stderr]).toEqual([0, expect.stringContaining('--new-token'), '']);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const unknown = await cli(['apps:lsit'], unreachable);
    expect([unknown.code, lines(unknown.stderr)]).toEqual([1, ["error: unknown command 'apps:lsit'", '(Did you mean apps:list?)']]);
  });

  it('an unknown ability lists the valid ones', async () => {
    const app = json(await cli(['apps:create', '--name', 'Abilities']));
    const result = await cli(['tokens:create', '--app', app.id, '--abilities', 'notifications:send,notifications:write']);
    expect([result.code, lines(result.stderr)]).toEqual([
      1,
      [`Unknown ability "notifications:write": the abilities are ${ABILITIES.join(', ')}, or * for all`],
    ]);
  });

  it('apps:list, apps:create and tokens:create need no APP_KEY; what seals a secret still does', async () => {
    const app = json(await cli(['apps:create', '--name', 'Keyless'], { APP_KEY: undefined }));
    expect(json(await cli(['apps:list'], { APP_KEY: undefined })).map((a: { id: string }) => a.id)).toContain(app.id);
    expect(json(await cli(['tokens:create', '--app', app.id, '--abilities', '*'], { APP_KEY: undefined })).token).toMatch(/^pns_/);
    const sealing = await cli(['apps:credentials', '--app', app.id, '--vapid-subject', 'mailto:ops@example.com'], { APP_KEY: undefined });
    expect([sealing.code, lines(sealing.stderr)]).toEqual([
      1,
      [expect.stringMatching(/^Invalid environment variable APP_KEY must be 32 bytes encoded in base64/)],
    ]);
  });

  it('a missing or unmigrated database suggests `npm run setup`', async () => {
    const missing = testDatabaseName('first_hour_missing');
    const result = await cli(['apps:list'], { DATABASE_URL: databaseUrl(missing) });
    expect([result.code, lines(result.stderr)]).toEqual([
      1,
      [`Cannot connect to the database: database "${missing}" does not exist: run \`npm run setup\` to create and migrate it`],
    ]);

    const empty = testDatabaseName('first_hour_empty');
    await withAdminClient((client) => client.query(`CREATE DATABASE "${empty}"`));
    created.push(empty);
    const unmigrated = await cli(['apps:list'], { DATABASE_URL: databaseUrl(empty) });
    expect([unmigrated.code, lines(unmigrated.stderr)]).toEqual([
      1,
      [expect.stringMatching(/^Error: relation "apps" does not exist: the database is not migrated; run `npm run setup` \(or `pns migrate`\)$/)],
    ]);
  });
});

describe('setup tells the truth (README.md "Run it, test it")', () => {
  let dir: string;
  let fresh: { name: string; url: string };
  // As an operator runs it: no NODE_ENV (so .env is read), no APP_KEY.
  const setup = (args: string[] = [], env: Record<string, string> = {}) =>
    runCli(['setup', ...args], { env: { DATABASE_URL: fresh.url, APP_KEY: undefined, NODE_ENV: undefined, ...env }, cwd: dir });
  const json = (result: RunResult): any => {
    if (result.code !== 0) throw new Error(`setup failed (${result.code}):\n${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const setupTokens = () => countTokens(fresh.url);

  beforeAll(async () => {
    assertBuilt();
    fresh = await createTestDatabase();
  });
  afterAll(() => dropTestDatabase(fresh.name));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pns-first-hour-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('run twice keeps the token it made and says which; --new-token makes another', async () => {
    const first = json(await setup());
    const before = await setupTokens();
    const again = await setup();
    const second = json(again);
    expect(second.app).toEqual(first.app);
    expect(second.token).toEqual({ id: first.token.id, name: 'setup', abilities: ['*'], kept: true, token: null });
    expect(again.stderr).toContain(`Kept its all-abilities token "setup" (id ${first.token.id}, created `);
    expect(again.stderr).toContain('npm run setup -- --new-token');
    expect(await setupTokens()).toBe(before);

    const renewed = json(await setup(['--new-token']));
    expect(renewed.token).toEqual({
      id: expect.not.stringMatching(first.token.id),
      name: 'setup',
      abilities: ['*'],
      kept: false,
      token: expect.stringMatching(/^pns_/),
    });
    expect(await setupTokens()).toBe(before + 1);
  });

  it('prints the new token last, and curls that register an installation, dry-run and send', async () => {
    const result = await setup(['--new-token']);
    const out = json(result);
    expect(lines(result.stdout).slice(-3)[0]).toBe(`    "token": "${out.token.token}"`);
    expect(Object.keys(out.curl)).toEqual(['register', 'dry_run', 'send']);
    expect(out.curl.register).toMatch(/^curl -i -X PUT http:\/\/localhost:\d+\/api\/v1\/installations\/my-first-device .*"user_id":"user-1"/);
    expect(out.curl.dry_run).toContain('"options":{"dry_run":true}');
    for (const curl of Object.values<string>(out.curl)) expect(curl).toContain(`Bearer ${out.token.token}`);
  });

  it('records every setting it is given (METRICS_PORT too), in the places a copied .env.example keeps for them', async () => {
    copyFileSync(join(ROOT, '.env.example'), join(dir, '.env'));
    const result = await setup([], { PORT: '3456', METRICS_PORT: '9999', REDIS_URL: 'redis://127.0.0.1:6379/0', LOG_LEVEL: 'warn' });
    json(result);
    // .env.example holds no value setup would have to refuse: nothing "differs".
    expect(result.stderr).not.toContain('differs');
    const text = readFileSync(join(dir, '.env'), 'utf8');
    for (const line of [`DATABASE_URL=${fresh.url}`, 'PORT=3456', 'METRICS_PORT=9999', 'REDIS_URL=redis://127.0.0.1:6379/0', 'LOG_LEVEL=warn']) {
      expect(text.split('\n')).toContain(line);
    }
    // In place of the commented defaults, not appended after them.
    expect(text.split('\n').filter((line) => /^#?\s?PORT=/.test(line))).toEqual(['PORT=3456']);
  });

  it("when the environment's PORT differs from .env, the curls use .env's, which `npm start` will use", async () => {
    writeFileSync(join(dir, '.env'), 'PORT=3999\n');
    const result = await setup(['--new-token'], { PORT: '8080' });
    const out = json(result);
    expect(result.stderr).toContain('PORT in .env differs');
    for (const curl of Object.values<string>(out.curl)) expect(curl).toContain('http://localhost:3999/api/v1/');
  });

  it('.env.example sets no value (each is commented out or empty)', () => {
    const active = readFileSync(join(ROOT, '.env.example'), 'utf8')
      .split('\n')
      .filter((line) => /^\s*[A-Z_]+\s*=\s*\S/.test(line));
    expect(active).toEqual([]);
  });
});

/** Tokens named `setup` in that database. */
async function countTokens(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query(`SELECT count(*) AS n FROM api_tokens WHERE name = 'setup'`)).rows[0].n);
  } finally {
    await client.end();
  }
}
