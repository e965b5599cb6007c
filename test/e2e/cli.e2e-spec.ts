import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ABILITIES } from '../../src/auth/abilities';
import { TokensRepository } from '../../src/auth/tokens.repository';
import { TokenCache } from '../../src/auth/token-cache';
import { TokenChangesRepository } from '../../src/auth/token-changes.repository';
import { TokensService } from '../../src/auth/tokens.service';
import { EnvironmentVariables } from '../../src/config/env';
import { dataSourceOptions } from '../../src/database/data-source';
import { assertBuilt, childEnv, inParallel, lines, ROOT, runCli, RunResult, TEST_APP_KEY } from '../support/processes';
import { databaseUrl, withAdminClient } from '../support/services';
import { createTestDatabase, dropTestDatabase, testDatabaseName } from '../support/test-database';

/**
 * The operator CLI (docs/api.md#cli), run as built: `node dist/src/cli.js <command>`.
 * Stdout carries only the command's JSON; a failure exits non-zero with one line on stderr.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TOKEN = /^pns_[0-9A-Za-z]{40,}$/;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

jest.setTimeout(120_000);

/** The whole of stdout parsed as one JSON document, after checking the command succeeded. */
function json(result: RunResult): any {
  if (result.code !== 0) throw new Error(`command failed (${result.code}):\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

function expectOneLineFailure(result: RunResult, pattern?: RegExp): void {
  expect({ code: result.code === 0 ? 0 : 'non-zero', stdout: result.stdout }).toEqual({ code: 'non-zero', stdout: '' });
  expect(lines(result.stderr)).toHaveLength(1);
  if (pattern) expect(result.stderr).toMatch(pattern);
}

describe('operator CLI (docs/api.md#cli)', () => {
  const created: string[] = [];
  let url: string;
  let sql: Client;
  let unreachable: Promise<RunResult>;
  const env = () => ({ DATABASE_URL: url, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test', LOG_LEVEL: 'info' });
  const cli = (...args: string[]) => runCli(args, { env: env() });

  /** A database with no tables at all, for `migrate` and `setup`. */
  async function emptyDatabase(label: string): Promise<string> {
    const name = testDatabaseName(label);
    await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`));
    created.push(name);
    return databaseUrl(name);
  }

  beforeAll(async () => {
    assertBuilt();
    // Started first, as it may take long: port 1 on loopback refuses connections at once.
    unreachable = runCli(['apps:list'], {
      env: { ...env(), DATABASE_URL: 'postgres://postgres@127.0.0.1:1/push_test_unreachable' },
      timeoutMs: 110_000,
    });
    const database = await createTestDatabase();
    created.push(database.name);
    url = database.url;
    sql = new Client({ connectionString: url });
    await sql.connect();
  });

  afterAll(async () => {
    await unreachable;
    await sql?.end();
    await Promise.all(created.map((name) => dropTestDatabase(name)));
  });

  const newApp = async (name = 'CLI app'): Promise<{ id: string; name: string }> => json(await cli('apps:create', '--name', name));
  const tokenCount = async () => Number((await sql.query(`SELECT count(*) AS n FROM api_tokens`)).rows[0].n);

  describe('migrate', () => {
    it('applies every migration to an empty database, then reports none on a second run', async () => {
      const fresh = await emptyDatabase('cli_migrate');
      const first = await runCli(['migrate'], { env: { ...env(), DATABASE_URL: fresh } });
      const applied = json(first).applied;
      expect(Array.isArray(applied)).toBe(true);
      expect(applied.length).toBeGreaterThan(0);
      applied.forEach((name: unknown) => expect(typeof name).toBe('string'));

      const client = new Client({ connectionString: fresh });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT name FROM migrations ORDER BY id`);
        expect(rows.map((row) => row.name)).toEqual(applied);
        const tables = await client.query(`SELECT to_regclass('public.apps') AS apps, to_regclass('public.api_tokens') AS tokens`);
        expect(tables.rows[0]).toEqual({ apps: 'apps', tokens: 'api_tokens' });
      } finally {
        await client.end();
      }

      const second = await runCli(['migrate'], { env: { ...env(), DATABASE_URL: fresh } });
      expect(json(second)).toEqual({ applied: [] });
    });
  });

  describe('apps:create and apps:list', () => {
    it('apps:create prints {id, name} and stores the app', async () => {
      const result = await cli('apps:create', '--name', 'Café ☕ "quoted"');
      const app = json(result);
      expect(app).toEqual(expect.objectContaining({ id: expect.stringMatching(UUID), name: 'Café ☕ "quoted"' }));
      const { rows } = await sql.query(`SELECT name FROM apps WHERE id = $1`, [app.id]);
      expect(rows).toEqual([{ name: 'Café ☕ "quoted"' }]);
    });

    it('`npx pns apps:list`, the package bin, prints only the JSON on stdout (no npm banner), so it pipes into a parser', async () => {
      await newApp('Listed through the bin');
      const { stdout } = await promisify(execFile)('npx', ['--no-install', 'pns', 'apps:list'], { cwd: ROOT, env: childEnv(env()) });
      expect(JSON.parse(stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Listed through the bin' })]));
    });

    it('apps:list prints an array holding every app', async () => {
      const [a, b] = await Promise.all([newApp('List A'), newApp('List B')]);
      const list = json(await cli('apps:list'));
      expect(Array.isArray(list)).toBe(true);
      expect(list).toEqual(expect.arrayContaining([expect.objectContaining(a), expect.objectContaining(b)]));
      const { rows } = await sql.query(`SELECT id FROM apps`);
      expect(list.map((app: { id: string }) => app.id).sort()).toEqual(rows.map((row) => row.id).sort());
    });
  });

  describe('tokens', () => {
    let app: { id: string; name: string };
    let tokens: TokensService;
    let cache: TokenCache;
    let dataSource: DataSource;

    beforeAll(async () => {
      app = await newApp('Token app');
      // The service's own authentication path, on the CLI's database.
      dataSource = new DataSource({ ...dataSourceOptions(url), extra: { max: 2 } });
      await dataSource.initialize();
      const config = Object.assign(new EnvironmentVariables(), { APP_MODE: 'api' });
      cache = new TokenCache(new TokenChangesRepository(dataSource, config), config);
      tokens = new TokensService(new TokensRepository(dataSource), cache);
    });
    afterAll(async () => {
      await cache?.onModuleDestroy();
      await dataSource?.destroy();
    });

    it('tokens:create prints {id, token, abilities}; the token is pns_ + 40+ base62 and only its SHA-256 is stored', async () => {
      const out = json(await cli('tokens:create', '--app', app.id, '--abilities', 'installations:write,notifications:send'));
      expect(out).toEqual(
        expect.objectContaining({
          id: expect.stringMatching(UUID),
          token: expect.stringMatching(TOKEN),
          abilities: ['installations:write', 'notifications:send'],
        }),
      );
      const { rows } = await sql.query(`SELECT token_hash, abilities, app_id, row_to_json(t)::text AS everything FROM api_tokens t WHERE id = $1`, [out.id]);
      expect(rows).toHaveLength(1);
      expect(rows[0].token_hash).toBe(sha256(out.token));
      expect(rows[0].abilities).toEqual(['installations:write', 'notifications:send']);
      expect(rows[0].app_id).toBe(app.id);
      // The secret itself is nowhere in the row (only its hash).
      expect(rows[0].everything).not.toContain(out.token);
      expect(rows[0].everything).not.toContain(out.token.slice(4));

      const auth = await tokens.authenticate(out.token);
      expect(auth).toEqual({ tokenId: out.id, appId: app.id, abilities: ['installations:write', 'notifications:send'] });
    });

    it('every token is different', async () => {
      const results = await inParallel(Array.from({ length: 2 }, () => () => cli('tokens:create', '--app', app.id, '--abilities', '*')));
      const values = results.map((result) => json(result).token);
      values.forEach((value) => expect(value).toMatch(TOKEN));
      expect(new Set(values).size).toBe(values.length);
    });

    it('accepts every ability, alone or together, and *', async () => {
      const lists = [['*'], [...ABILITIES], ['events:write']];
      const results = await inParallel(lists.map((abilities) => () => cli('tokens:create', '--app', app.id, '--abilities', abilities.join(','))));
      results.forEach((result, i) => expect(json(result).abilities).toEqual(lists[i]));
    });

    it('trims and de-duplicates the ability list', async () => {
      const out = json(await cli('tokens:create', '--app', app.id, '--abilities', ' installations:read , installations:read,notifications:read'));
      expect(out.abilities).toEqual(['installations:read', 'notifications:read']);
    });

    it('--name and --expires-in-days are stored', async () => {
      const out = json(await cli('tokens:create', '--app', app.id, '--abilities', '*', '--name', 'ci deploy', '--expires-in-days', '30'));
      const { rows } = await sql.query(`SELECT name, (expires_at - created_at) = interval '30 days' AS thirty_days FROM api_tokens WHERE id = $1`, [out.id]);
      expect(rows).toEqual([{ name: 'ci deploy', thirty_days: true }]);
      if ('expires_at' in out) expect(out.expires_at).toMatch(ISO);
      if ('name' in out) expect(out.name).toBe('ci deploy');
    });

    it('a token created without --expires-in-days does not expire', async () => {
      const out = json(await cli('tokens:create', '--app', app.id, '--abilities', '*'));
      const { rows } = await sql.query(`SELECT expires_at FROM api_tokens WHERE id = $1`, [out.id]);
      expect(rows).toEqual([{ expires_at: null }]);
    });

    it("tokens:list prints the app's tokens and never a secret or a hash", async () => {
      const [own, other] = await Promise.all([newApp('List tokens'), newApp('Other tokens')]);
      const [first, second, foreign] = (
        await Promise.all([
          cli('tokens:create', '--app', own.id, '--abilities', 'installations:read', '--name', 'first'),
          cli('tokens:create', '--app', own.id, '--abilities', '*'),
          cli('tokens:create', '--app', other.id, '--abilities', '*'),
        ])
      ).map(json);

      const result = await cli('tokens:list', '--app', own.id);
      const list = json(result);
      expect(Array.isArray(list)).toBe(true);
      expect(list.map((token: { id: string }) => token.id).sort()).toEqual([first.id, second.id].sort());
      for (const secret of [first.token, second.token, foreign.token]) {
        expect(result.stdout).not.toContain(secret);
        expect(result.stdout).not.toContain(secret.slice(4));
        expect(result.stdout).not.toContain(sha256(secret));
      }
      for (const token of list) {
        expect(token).not.toHaveProperty('token');
        expect(token).not.toHaveProperty('token_hash');
        expect(token).toEqual(expect.objectContaining({ id: expect.stringMatching(UUID), abilities: expect.any(Array) }));
      }
      expect(list.find((token: { id: string }) => token.id === first.id)).toEqual(
        expect.objectContaining({ abilities: ['installations:read'], name: 'first', revoked_at: null }),
      );
    });

    it('tokens:list of an app without tokens is an empty array', async () => {
      const empty = await newApp('No tokens');
      expect(json(await cli('tokens:list', '--app', empty.id))).toEqual([]);
    });

    it('tokens:revoke revokes at once: revoked_at is set, the token no longer authenticates, tokens:list shows it', async () => {
      const own = await newApp('Revoke');
      const out = json(await cli('tokens:create', '--app', own.id, '--abilities', '*'));
      expect(await tokens.authenticate(out.token)).not.toBeNull();

      const result = await cli('tokens:revoke', '--id', out.id);
      const revoked = json(result);
      expect(revoked).toEqual(expect.objectContaining({ id: out.id, revoked_at: expect.stringMatching(ISO) }));
      expect(result.stdout).not.toContain(out.token);
      expect(result.stdout).not.toContain(sha256(out.token));

      const { rows } = await sql.query(`SELECT revoked_at FROM api_tokens WHERE id = $1`, [out.id]);
      expect(rows[0].revoked_at).toBeInstanceOf(Date);
      expect(rows[0].revoked_at.toISOString()).toBe(revoked.revoked_at);
      expect(await tokens.authenticate(out.token)).toBeNull();

      // Revoking again succeeds and keeps the first revocation time.
      const [list, again] = (await Promise.all([cli('tokens:list', '--app', own.id), cli('tokens:revoke', '--id', out.id)])).map(json);
      expect(list).toEqual([expect.objectContaining({ id: out.id, revoked_at: revoked.revoked_at })]);
      expect(again.revoked_at).toBe(revoked.revoked_at);
    });

    it('revoking one token leaves the others working', async () => {
      const [a, b] = (await Promise.all([1, 2].map(() => cli('tokens:create', '--app', app.id, '--abilities', '*')))).map(json);
      json(await cli('tokens:revoke', '--id', a.id));
      expect(await tokens.authenticate(a.token)).toBeNull();
      expect(await tokens.authenticate(b.token)).toEqual(expect.objectContaining({ tokenId: b.id }));
    });
  });

  describe('failures: non-zero exit, exactly one line on stderr, nothing on stdout, nothing written', () => {
    const UNKNOWN = '00000000-0000-4000-8000-000000000000';
    let app: { id: string };
    /** Each case's run, started together in beforeAll and awaited by its own test, so no one timeout covers them all. */
    let results: Map<string, Promise<RunResult>>;
    let tokensBefore: number;
    let appsBefore: number;

    const cases: { name: string; args: (appId: string) => string[]; env?: Record<string, string | undefined>; stderr?: RegExp }[] = [
      { name: 'apps:create without --name', args: () => ['apps:create'], stderr: /name/ },
      { name: 'apps:create with a blank name', args: () => ['apps:create', '--name', '   '], stderr: /name/ },
      { name: 'apps:create with a 256-character name', args: () => ['apps:create', '--name', 'n'.repeat(256)], stderr: /name/ },
      { name: 'tokens:create for an unknown app', args: () => ['tokens:create', '--app', UNKNOWN, '--abilities', '*'], stderr: /not found/i },
      {
        name: 'tokens:create with an unknown ability',
        args: (id) => ['tokens:create', '--app', id, '--abilities', 'installations:read,push:all'],
        stderr: /push:all/,
      },
      { name: 'tokens:create with an empty ability list', args: (id) => ['tokens:create', '--app', id, '--abilities', ','], stderr: /abilit/ },
      { name: 'tokens:create without --abilities', args: (id) => ['tokens:create', '--app', id], stderr: /abilities/ },
      { name: 'tokens:create with a 256-character --name', args: (id) => ['tokens:create', '--app', id, '--abilities', '*', '--name', 'x'.repeat(256)] },
      ...['0', '1.5', 'abc', '36501'].map((days) => ({
        name: `tokens:create --expires-in-days ${JSON.stringify(days)}`,
        args: (id: string) => ['tokens:create', '--app', id, '--abilities', '*', '--expires-in-days', days],
        stderr: /expires-in-days/,
      })),
      { name: 'tokens:list without --app', args: () => ['tokens:list'], stderr: /app/ },
      { name: 'tokens:list for an unknown app', args: () => ['tokens:list', '--app', UNKNOWN], stderr: /not found/i },
      { name: 'tokens:revoke without --id', args: () => ['tokens:revoke'], stderr: /id/ },
      { name: 'tokens:revoke of an unknown token', args: () => ['tokens:revoke', '--id', UNKNOWN], stderr: /not found/i },
      { name: 'an invalid APP_KEY', args: () => ['apps:list'], env: { APP_KEY: 'not-a-key' }, stderr: /APP_KEY/ },
      // Only what seals or opens a secret needs it (apps:create does not: first-hour.e2e-spec.ts).
      {
        name: 'no APP_KEY at all, for a command that seals a secret',
        args: (id) => ['apps:credentials', '--app', id, '--vapid-subject', 'mailto:ops@example.com'],
        env: { APP_KEY: undefined },
        stderr: /APP_KEY/,
      },
      { name: 'an invalid DATABASE_URL', args: () => ['apps:list'], env: { DATABASE_URL: 'mysql://localhost/push' }, stderr: /DATABASE_URL/ },
      { name: 'an unknown command', args: () => ['frobnicate', '--id', UNKNOWN], stderr: /frobnicate/ },
    ];

    beforeAll(async () => {
      app = json(await cli('apps:create', '--name', 'Failures'));
      tokensBefore = await tokenCount();
      appsBefore = Number((await sql.query(`SELECT count(*) AS n FROM apps`)).rows[0].n);
      // Each run starts Node and Nest (about a second), so they run side by side, in eight lanes.
      const lanes: Promise<unknown>[] = Array.from({ length: 8 }, () => Promise.resolve());
      results = new Map(
        cases.map((c, i) => {
          const run = lanes[i % lanes.length].then(() => runCli(c.args(app.id), { env: { ...env(), ...c.env } }));
          lanes[i % lanes.length] = run;
          return [c.name, run];
        }),
      );
    });

    it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      expectOneLineFailure(await results.get(c.name)!, c.stderr);
    });

    it('no failed command created an app or a token', async () => {
      await Promise.all(results.values());
      expect(await tokenCount()).toBe(tokensBefore);
      expect(Number((await sql.query(`SELECT count(*) AS n FROM apps`)).rows[0].n)).toBe(appsBefore);
    });

    it('an unreachable database fails with one line on stderr (no retry loop, no stack trace)', async () => {
      const result = await unreachable;
      expectOneLineFailure(result);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  });

  describe('setup (first run in a fresh directory)', () => {
    let dir: string;
    let fresh: string;
    // As an operator would run it: no NODE_ENV (so .env is read) and no APP_KEY.
    const setup = (args: string[] = []) => runCli(['setup', ...args], { env: { DATABASE_URL: fresh, APP_KEY: undefined, NODE_ENV: undefined }, cwd: dir });
    const keysIn = (text: string) => [...text.matchAll(/^APP_KEY=(.*)$/gm)].map((match) => match[1]);

    beforeAll(async () => {
      fresh = await emptyDatabase('cli_setup');
    });
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'pns-setup-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('writes a 32-byte base64 APP_KEY into .env, migrates, and prints an app and an all-abilities token as JSON', async () => {
      const result = await setup();
      const out = json(result);
      expect(out.app).toEqual(expect.objectContaining({ id: expect.stringMatching(UUID), name: expect.any(String) }));
      expect(out.token).toEqual(expect.objectContaining({ id: expect.stringMatching(UUID), token: expect.stringMatching(TOKEN), abilities: ['*'] }));

      const keys = keysIn(readFileSync(join(dir, '.env'), 'utf8'));
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(keys[0], 'base64')).toHaveLength(32);
      expect(result.stdout).not.toContain(keys[0]);

      const client = new Client({ connectionString: fresh });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT token_hash, abilities, app_id FROM api_tokens WHERE id = $1`, [out.token.id]);
        expect(rows).toEqual([{ token_hash: sha256(out.token.token), abilities: ['*'], app_id: out.app.id }]);
      } finally {
        await client.end();
      }
    });

    it('keeps the other lines of an existing .env (even without a final newline) and adds APP_KEY on its own line', async () => {
      writeFileSync(join(dir, '.env'), 'PORT=3999\n# comment\nLOG_LEVEL=warn');
      json(await setup());
      const text = readFileSync(join(dir, '.env'), 'utf8');
      expect(text.startsWith('PORT=3999\n# comment\nLOG_LEVEL=warn\n')).toBe(true);
      expect(keysIn(text)).toEqual([expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/)]);
    });

    it('a second run keeps the same APP_KEY, the same app and its token (first-hour.e2e-spec.ts has the rest)', async () => {
      const first = json(await setup());
      const envFile = readFileSync(join(dir, '.env'), 'utf8');
      const second = json(await setup());
      expect(readFileSync(join(dir, '.env'), 'utf8')).toBe(envFile);
      expect(second.app.id).toBe(first.app.id);
      expect(second.token).toMatchObject({ id: first.token.id, kept: true, token: null });
    });

    it('creates the database when it does not exist yet', async () => {
      const name = testDatabaseName('cli_setup_new');
      created.push(name);
      const result = await runCli(['setup'], { env: { DATABASE_URL: databaseUrl(name), APP_KEY: TEST_APP_KEY, NODE_ENV: undefined }, cwd: dir });
      const out = json(result);
      expect(result.stderr).toContain(`Created database ${name}.`);
      const client = new Client({ connectionString: databaseUrl(name) });
      await client.connect();
      try {
        expect((await client.query(`SELECT id FROM apps`)).rows).toEqual([{ id: out.app.id }]);
      } finally {
        await client.end();
      }
    });

    it('fills the empty APP_KEY= line of a copied .env.example in place instead of adding a second one', async () => {
      copyFileSync(join(ROOT, '.env.example'), join(dir, '.env'));
      json(await setup());
      const text = readFileSync(join(dir, '.env'), 'utf8');
      expect(keysIn(text)).toEqual([expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/)]);
      // Lines setup had no reason to touch stay as they were, in their place.
      expect(text.split('\n').slice(0, 3)).toEqual(readFileSync(join(ROOT, '.env.example'), 'utf8').split('\n').slice(0, 3));
    });

    it('records the DATABASE_URL it was given, so a later `npm start` in the same directory reaches the same database', async () => {
      const result = await runCli(['setup'], {
        env: { DATABASE_URL: fresh, REDIS_URL: 'redis://127.0.0.1:6379/0', APP_KEY: TEST_APP_KEY, NODE_ENV: undefined },
        cwd: dir,
      });
      json(result);
      const text = readFileSync(join(dir, '.env'), 'utf8');
      expect(text).toContain(`DATABASE_URL=${fresh}\n`);
      expect(text).toContain('REDIS_URL=redis://127.0.0.1:6379/0\n');
      // An APP_KEY from the environment is the operator's secret: it is not copied into the file.
      expect(keysIn(text)).toEqual([]);
    });

    it('keeps a different value already in .env, and says so on stderr', async () => {
      writeFileSync(join(dir, '.env'), `APP_KEY=${TEST_APP_KEY}\nDATABASE_URL=postgres://elsewhere/db\n`);
      const result = await runCli(['setup'], { env: { DATABASE_URL: fresh, APP_KEY: undefined, NODE_ENV: undefined }, cwd: dir });
      json(result);
      expect(readFileSync(join(dir, '.env'), 'utf8')).toBe(`APP_KEY=${TEST_APP_KEY}\nDATABASE_URL=postgres://elsewhere/db\n`);
      expect(result.stderr).toContain('DATABASE_URL in .env differs');
    });

    it('prints the token once: in the JSON on stdout, not again on stderr', async () => {
      const result = await setup(['--new-token']);
      const out = json(result);
      expect(result.stdout.split(out.token.token).length - 1).toBe(4); // token.token and the three curls
      expect(result.stderr).not.toContain(out.token.token);
    });
  });
});
