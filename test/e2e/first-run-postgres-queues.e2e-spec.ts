import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_CA_PATH } from '../../src/sandbox/fake-server';
import type { SandboxInfo } from '../../src/sandbox/sandbox';
import { assertBuilt, BUILT_CLI, childEnv, freePort, killAllServices, runCli, ServiceProcess, waitUntil } from '../support/processes';

jest.setTimeout(240_000);

/**
 * The first run where neither PostgreSQL nor Redis answers (docs/operations.md "Choosing a queue
 * backend"): setup records DATABASE_URL=embedded and QUEUE_BACKEND=postgres, and the service
 * started from that checkout, with REDIS_URL at a closed port, delivers a first send to
 * `pns sandbox`'s inbox.
 */
describe('setup and npm start with no PostgreSQL or Redis reachable', () => {
  let sandboxDir: string;
  let workdir: string;
  let sandbox: ChildProcess | undefined;

  beforeAll(() => {
    assertBuilt();
    sandboxDir = mkdtempSync(join(tmpdir(), 'pns-pgq-sandbox-'));
    workdir = mkdtempSync(join(tmpdir(), 'pns-pgq-checkout-'));
    // Under root the embedded server runs as its own user, which must be able to enter the folder.
    chmodSync(workdir, 0o755);
  });
  afterAll(async () => {
    await killAllServices();
    if (sandbox && sandbox.exitCode === null) {
      const exited = new Promise((resolve) => sandbox!.once('exit', resolve));
      sandbox.kill('SIGTERM');
      await exited;
    }
    rmSync(sandboxDir, { recursive: true, force: true });
    rmSync(workdir, { recursive: true, force: true });
  });

  it('records DATABASE_URL=embedded and QUEUE_BACKEND=postgres, and the started service delivers to the sandbox', async () => {
    sandbox = spawn(process.execPath, [BUILT_CLI, 'sandbox', '--port', '0', '--dir', sandboxDir], {
      env: childEnv({ APP_KEY: undefined, DATABASE_URL: undefined, REDIS_URL: undefined, NODE_EXTRA_CA_CERTS: undefined }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    sandbox.stdout!.setEncoding('utf8').on('data', (chunk: string) => (printed += chunk));
    await waitUntil(() => printed.includes('\n'), 'the JSON line of pns sandbox');
    const info = JSON.parse(printed.split('\n')[0]) as SandboxInfo;

    const [closedPostgres, closedRedis] = [await freePort(), await freePort()];
    const setup = await runCli(['setup', '--sandbox', info.url], {
      cwd: workdir,
      timeoutMs: 180_000,
      env: {
        DATABASE_URL: undefined,
        PNS_SETUP_POSTGRES_ADDRESS: `127.0.0.1:${closedPostgres}`,
        PNS_SETUP_REDIS_ADDRESS: `127.0.0.1:${closedRedis}`,
        REDIS_URL: undefined,
        QUEUE_BACKEND: undefined,
        APP_KEY: undefined,
        NODE_ENV: undefined,
      },
    });
    if (setup.code !== 0) throw new Error(`setup failed (${setup.code}):\n${setup.stderr}`);
    expect(
      setup.stderr.split('\n').filter((line) => line.startsWith(`No Redis answers at 127.0.0.1:${closedRedis}: recording QUEUE_BACKEND=postgres`)),
    ).toHaveLength(1);
    expect(readFileSync(join(workdir, '.env'), 'utf8')).toMatch(/^QUEUE_BACKEND=postgres$/m);
    expect(readFileSync(join(workdir, '.env'), 'utf8')).toMatch(/^DATABASE_URL=embedded$/m);
    const out = JSON.parse(setup.stdout) as { token: { token: string } };

    // npm start in that checkout: .env gives the rest; no Redis answers where REDIS_URL points.
    const port = await freePort();
    const service = ServiceProcess.start(
      { PORT: String(port), METRICS_PORT: '0', REDIS_URL: `redis://127.0.0.1:${closedRedis}`, NODE_EXTRA_CA_CERTS: TEST_CA_PATH, NODE_ENV: undefined },
      workdir,
    );
    await service.waitForHttp(port, '/health/ready', 60_000);
    expect(service.output()).toMatch(/queues in PostgreSQL/);
    const api = `http://127.0.0.1:${port}/api/v1`;
    const headers = { authorization: `Bearer ${out.token.token}`, 'content-type': 'application/json' };
    const token = randomBytes(32).toString('hex');
    const registered = await fetch(`${api}/installations/first-iphone`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ platform: 'ios', push_token: token, user_id: 'first-user' }),
    });
    expect(registered.status).toBe(201);
    const sent = await fetch(`${api}/notifications`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ recipients: { user_ids: ['first-user'] }, notification: { title: 'No Redis', body: 'Hello' } }),
    });
    expect(sent.status).toBe(202);
    const id = ((await sent.json()) as { data: { id: string } }).data.id;
    let entries: { token: string }[] = [];
    await waitUntil(
      async () => {
        entries = ((await (await fetch(`${info.url}/inbox?notification_id=${id}`)).json()) as { data: typeof entries }).data;
        return entries.length > 0;
      },
      `the sandbox's inbox to hold notification ${id}:\n${service.output()}`,
      60_000,
    );
    expect(entries).toEqual([expect.objectContaining({ token })]);
    expect(service.output()).not.toMatch(/Redis unreachable|ECONNREFUSED/);
  });
});
