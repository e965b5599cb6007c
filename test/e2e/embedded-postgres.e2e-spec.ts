import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertBuilt,
  DIST_DIR,
  freePort,
  killAllServices,
  runCli,
  RunResult,
  runNode,
  serviceEnv,
  ServiceProcess,
  TEST_APP_KEY,
  waitUntil,
} from '../support/processes';

/**
 * DATABASE_URL=embedded (docs/operations.md "Embedded PostgreSQL"), with the built CLI and service:
 * a PostgreSQL of the service's own in PNS_DATA_DIR, shared by the processes of that directory,
 * stopped by the last one to leave, its data kept across restarts.
 */
jest.setTimeout(240_000);

describe('DATABASE_URL=embedded', () => {
  let root: string;
  let dataDir: string;
  const queuePrefix = `embedded-${process.pid}`;
  const env = (extra: Record<string, string> = {}) => ({ DATABASE_URL: 'embedded', PNS_DATA_DIR: dataDir, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test', ...extra });
  const cli = (...args: string[]) => runCli(args, { env: env() });
  const api = (port: number) =>
    ServiceProcess.start(serviceEnv({ databaseUrl: 'embedded', queuePrefix }, { APP_MODE: 'api', PORT: String(port), PNS_DATA_DIR: dataDir }));

  /** The postmasters (not their backends, whose titles PostgreSQL rewrites) serving this data directory. */
  const postmasters = () =>
    readdirSync('/proc')
      .filter((pid) => /^\d+$/.test(pid))
      .filter((pid) => {
        try {
          const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          return args[0].endsWith('/native/bin/postgres') && args.includes(join(dataDir, 'postgres'));
        } catch {
          return false;
        }
      });

  function json(result: RunResult): any {
    if (result.code !== 0) throw new Error(`command failed (${result.code}):\n${result.stderr}`);
    return JSON.parse(result.stdout);
  }

  beforeAll(() => {
    assertBuilt();
    root = mkdtempSync(join(tmpdir(), 'pns-embedded-'));
    // Under root the server runs as its own user, which must be able to enter the folder.
    chmodSync(root, 0o755);
    dataDir = join(root, 'data');
  });

  afterAll(async () => {
    await killAllServices();
    // A failed run may leave the server of killed processes: stop it.
    const file = join(dataDir, 'postgres', 'postmaster.pid');
    if (existsSync(file)) {
      process.kill(Number(readFileSync(file, 'utf8').split('\n')[0]), 'SIGINT');
      await waitUntil(() => !existsSync(file), 'the leftover server to stop', 60_000);
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('migrates, serves, keeps its data across restarts, is shared by two processes and stopped by the last', async () => {
    const migrated = await cli('migrate');
    expect(json(migrated).applied.length).toBeGreaterThan(0);
    expect(migrated.stderr).toMatch(/Embedded PostgreSQL .* created and started it/);
    expect(postmasters()).toEqual([]);

    const port = await freePort();
    let service = api(port);
    await service.waitForHttp(port);
    expect(service.stdout + service.stderr).toMatch(/Embedded PostgreSQL .* started it in \d+ ms/);
    expect(postmasters()).toHaveLength(1);

    // The CLI joins the server the api started.
    const app = await cli('apps:create', '--name', 'Embedded');
    expect(app.stderr).toMatch(/joined the one running/);
    const token = json(await cli('tokens:create', '--app', json(app).id, '--abilities', '*')).token as string;
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const put = await fetch(`http://127.0.0.1:${port}/api/v1/installations/device-1`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ platform: 'android', push_token: 'embedded-token-1', user_id: 'user-1' }),
    });
    expect(put.status).toBeLessThan(300);

    expect(await service.stop()).toEqual({ code: 0, signal: null });
    expect(postmasters()).toEqual([]);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    service = api(port);
    await service.waitForHttp(port);
    const read = async (at: number) => {
      const response = await fetch(`http://127.0.0.1:${at}/api/v1/installations/device-1`, { headers });
      return { status: response.status, user_id: ((await response.json()) as { data?: { user_id?: string } }).data?.user_id };
    };
    expect(await read(port)).toEqual({ status: 200, user_id: 'user-1' });

    const secondPort = await freePort();
    const second = api(secondPort);
    await second.waitForHttp(secondPort);
    expect(second.stdout + second.stderr).toMatch(/joined the one running/);
    expect(postmasters()).toHaveLength(1);
    expect(await read(secondPort)).toEqual({ status: 200, user_id: 'user-1' });

    // The first to leave leaves the server to the other; the last stops it.
    expect(await service.stop()).toEqual({ code: 0, signal: null });
    expect(postmasters()).toHaveLength(1);
    expect(await read(secondPort)).toEqual({ status: 200, user_id: 'user-1' });
    expect(await second.stop()).toEqual({ code: 0, signal: null });
    expect(postmasters()).toEqual([]);
    expect(readdirSync(join(dataDir, 'holders'))).toEqual([]);
  });

  it('a killed holder blocks nothing: the next process joins the server it left and, last out, stops it', async () => {
    const port = await freePort();
    const service = api(port);
    await service.waitForHttp(port);
    await service.stop('SIGKILL');
    expect(postmasters()).toHaveLength(1);
    const listed = await cli('apps:list');
    expect(JSON.stringify(json(listed))).toContain('"name":"Embedded"');
    expect(listed.stderr).toMatch(/joined the one running/);
    expect(postmasters()).toEqual([]);
    expect(readdirSync(join(dataDir, 'holders'))).toEqual([]);
  });

  it("TypeORM's CLI (ormconfig.ts, npm run migration:generate) reads the embedded database, and stops the server it started", async () => {
    const shown = await runNode(require.resolve('typeorm/cli'), ['migration:show', '-d', join(DIST_DIR, 'ormconfig.js')], { env: env() });
    expect(shown.stderr + shown.stdout).not.toMatch(/error/i);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/\[X\] \d+ \w+1\d{12}/);
    expect(shown.stdout).not.toMatch(/\[ \]/);
    expect(postmasters()).toEqual([]);
  });
});

describe('setup where nothing answers at the default addresses', () => {
  let dir: string;
  beforeAll(() => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'pns-first-run-'));
    chmodSync(dir, 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('records DATABASE_URL=embedded and QUEUE_BACKEND=postgres, one line each, in a .env of mode 600', async () => {
    // A .env the operator made readable by others: setup tightens it and says so.
    writeFileSync(join(dir, '.env'), 'LOG_LEVEL=warn\n', { mode: 0o644 });
    chmodSync(join(dir, '.env'), 0o644);
    const [closedPostgres, closedRedis] = [await freePort(), await freePort()];
    const result = await runCli(['setup'], {
      cwd: dir,
      timeoutMs: 180_000,
      env: {
        PNS_SETUP_POSTGRES_ADDRESS: `127.0.0.1:${closedPostgres}`,
        PNS_SETUP_REDIS_ADDRESS: `127.0.0.1:${closedRedis}`,
        DATABASE_URL: undefined,
        REDIS_URL: undefined,
        APP_KEY: undefined,
        NODE_ENV: undefined,
      },
    });
    if (result.code !== 0) throw new Error(`setup failed (${result.code}):\n${result.stderr}`);
    expect(JSON.parse(result.stdout).token.token).toMatch(/^pns_/);
    const said = result.stderr.split('\n');
    expect(said.filter((line) => line.startsWith(`No PostgreSQL answers at 127.0.0.1:${closedPostgres}: recording DATABASE_URL=embedded`))).toHaveLength(1);
    expect(said.filter((line) => line.startsWith(`No Redis answers at 127.0.0.1:${closedRedis}: recording QUEUE_BACKEND=postgres`))).toHaveLength(1);
    expect(said.filter((line) => line.startsWith('.env was readable by others (mode 644)'))).toHaveLength(1);
    const dotEnv = readFileSync(join(dir, '.env'), 'utf8');
    expect(dotEnv).toMatch(/^DATABASE_URL=embedded$/m);
    expect(dotEnv).toMatch(/^QUEUE_BACKEND=postgres$/m);
    expect(dotEnv).toMatch(/^LOG_LEVEL=warn$/m);
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600);
    // The data is in the working directory's .pns/, and the server stopped with setup.
    expect(existsSync(join(dir, '.pns', 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dir, '.pns', 'postgres', 'postmaster.pid'))).toBe(false);
  });
});
