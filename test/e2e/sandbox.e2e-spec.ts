import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_CA_PATH } from '../../src/sandbox/fake-server';
import type { SandboxInfo } from '../../src/sandbox/sandbox';
import { assertBuilt, BUILT_CLI, childEnv, freePort, listeningSockets, runCli, ServiceProcess, waitUntil } from '../support/processes';
import { databaseUrl, deleteRedisPrefix, TEST_REDIS_URL } from '../support/services';
import { dropTestDatabase, testDatabaseName } from '../support/test-database';

/** 127.0.0.1 as /proc/net/tcp writes it (little-endian hex). */
const LOOPBACK_HEX = '0100007F';

/** `pns sandbox` as a developer starts it: the built CLI, no database, Redis or APP_KEY in its environment. */
class SandboxProcess {
  private stdout = '';
  private stderr = '';
  private constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
  }

  static async start(args: string[]): Promise<{ process: SandboxProcess; info: SandboxInfo }> {
    const child = spawn(process.execPath, [BUILT_CLI, 'sandbox', ...args], {
      env: childEnv({ APP_KEY: undefined, DATABASE_URL: undefined, REDIS_URL: undefined, NODE_EXTRA_CA_CERTS: undefined }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const sandbox = new SandboxProcess(child);
    await waitUntil(() => {
      if (child.exitCode !== null) throw new Error(`pns sandbox exited ${child.exitCode}: ${sandbox.stderr}`);
      return sandbox.stdout.includes('\n');
    }, 'the JSON line of pns sandbox');
    return { process: sandbox, info: JSON.parse(sandbox.stdout.split('\n')[0]) as SandboxInfo };
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.kill('SIGTERM');
    return exited;
  }
}

/**
 * The sandbox as a developer meets it (docs/testing.md): `pns sandbox` makes its CA and
 * credentials once, binds loopback only, then `pns setup --sandbox` points a fresh checkout at it
 * and `npm start` (the built service, its CA trusted from .env alone) delivers to it.
 */
describe('pns sandbox and setup --sandbox (docs/testing.md)', () => {
  let dir: string;
  let workdir: string;
  let sandbox: SandboxProcess | undefined;
  let info: SandboxInfo;
  let service: ServiceProcess | undefined;
  const databaseName = testDatabaseName('sandbox_setup');
  const queuePrefix = `test-${randomBytes(6).toString('hex')}`;

  beforeAll(() => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'pns-sandbox-dir-'));
    workdir = mkdtempSync(join(tmpdir(), 'pns-sandbox-checkout-'));
  });
  afterAll(async () => {
    await service?.stop();
    await sandbox?.stop();
    await dropTestDatabase(databaseName);
    await deleteRedisPrefix(queuePrefix);
    rmSync(dir, { recursive: true, force: true });
    rmSync(workdir, { recursive: true, force: true });
  });

  it('starts on loopback with its own CA, prints one JSON object, keeps its CA and credentials on the next start', async () => {
    const first = await SandboxProcess.start(['--port', '0', '--dir', dir]);
    expect(first.info).toMatchObject({
      dir,
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      env: {
        APNS_URL: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+$/),
        FCM_URL: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+$/),
        GOOGLE_TOKEN_URL: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/token$/),
        HMS_URL: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+$/),
        HMS_TOKEN_URL: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/oauth2\/v3\/token$/),
        WEB_PUSH_ALLOWED_HOSTS: 'localhost',
        NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
      },
      apns: { key_file: join(dir, 'apns-auth-key.p8'), key_id: expect.stringMatching(/^[A-Z0-9]{10}$/), topics: ['dev.pns.sandbox'] },
      fcm: { service_account_file: join(dir, 'fcm-service-account.json'), project_id: 'pns-sandbox' },
      hms: { app_id: expect.stringMatching(/^\d{9}$/), client_id: expect.stringMatching(/^\d{9}$/), client_secret: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const sockets = listeningSockets(first.process.child.pid!);
    expect(sockets === null ? null : [...sockets.values()].flat()).toEqual(
      sockets === null ? null : [LOOPBACK_HEX, LOOPBACK_HEX, LOOPBACK_HEX, LOOPBACK_HEX, LOOPBACK_HEX],
    );
    const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
    expect(await first.process.stop()).toBe(0);

    const second = await SandboxProcess.start(['--port', '0', '--dir', dir]);
    sandbox = second.process;
    info = second.info;
    expect(readFileSync(join(dir, 'ca.pem'), 'utf8')).toBe(ca);
    expect(second.info.apns.key_id).toBe(first.info.apns.key_id);
    expect(second.info.hms).toEqual(first.info.hms);
  });

  it('setup --sandbox writes its URLs and CA into .env and its credentials for the app; the started service delivers to it', async () => {
    const setup = await runCli(['setup', '--sandbox', info.url], {
      env: { DATABASE_URL: databaseUrl(databaseName), REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: queuePrefix, APP_KEY: undefined, NODE_ENV: undefined },
      cwd: workdir,
    });
    expect(setup.code).toBe(0);
    const out = JSON.parse(setup.stdout);
    expect(out.sandbox).toEqual({ url: info.url, inbox: `${info.url}/inbox` });
    // It says what it stored, per provider, and the VAPID public key (the app's, as apps:credentials shows it).
    const stored = await runCli(['apps:credentials', '--app', out.app.id], {
      env: { DATABASE_URL: databaseUrl(databaseName), REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: queuePrefix, NODE_ENV: undefined },
      cwd: workdir,
    });
    const summary = JSON.parse(stored.stdout) as { apns: { key_id: string }; fcm: { client_email: string }; web_push: { public_key: string } };
    expect(setup.stderr).toContain(`APNs: key ${info.apns.key_id}, team ${info.apns.team_id}, topic ${info.apns.topics[0]}, development`);
    expect(setup.stderr).toContain(`FCM: ${summary.fcm.client_email}`);
    expect(setup.stderr).toContain(`Huawei: client ${info.hms.client_id} (app ${info.hms.app_id})`);
    expect(setup.stderr).toContain(`VAPID public key (the web SDK's vapidPublicKey): ${summary.web_push.public_key}\n`);
    const dotEnv = readFileSync(join(workdir, '.env'), 'utf8');
    for (const [name, value] of Object.entries(info.env)) expect(dotEnv).toContain(`${name}=${value}\n`);

    // npm start in that checkout: everything from .env, NODE_EXTRA_CA_CERTS included, in an
    // environment that already names another extra CA (a company's own, say): both are trusted.
    const port = await freePort();
    service = ServiceProcess.start({ PORT: String(port), METRICS_PORT: '0', NODE_EXTRA_CA_CERTS: TEST_CA_PATH, NODE_ENV: undefined }, workdir);
    await service.waitForHttp(port, '/health/live', 60_000);
    const api = `http://127.0.0.1:${port}/api/v1`;
    const headers = { authorization: `Bearer ${out.token.token}`, 'content-type': 'application/json' };
    const token = randomBytes(32).toString('hex');
    const registered = await fetch(`${api}/installations/e2e-iphone`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ platform: 'ios', push_token: token, user_id: 'e2e-user' }),
    });
    expect(registered.status).toBe(201);
    const sent = await fetch(`${api}/notifications`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ recipients: { user_ids: ['e2e-user'] }, notification: { title: 'From npm start', body: 'Hello' } }),
    });
    expect(sent.status).toBe(202);
    const id = ((await sent.json()) as { data: { id: string } }).data.id;
    let entries: { token: string; payload: { aps: { alert: { title: string } } } }[] = [];
    await waitUntil(
      async () => {
        entries = ((await (await fetch(`${info.url}/inbox?notification_id=${id}`)).json()) as { data: typeof entries }).data;
        return entries.length > 0;
      },
      `the sandbox's inbox to hold notification ${id}:\n${service.output()}`,
      30_000,
    );
    expect(entries).toEqual([
      expect.objectContaining({
        token,
        payload: expect.objectContaining({ aps: expect.objectContaining({ alert: { title: 'From npm start', body: 'Hello' } }) }),
      }),
    ]);
  });
});
