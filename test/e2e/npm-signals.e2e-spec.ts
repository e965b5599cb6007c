import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertBuilt, childEnv, freePort, listeningPorts, probePort, ROOT, serviceEnv, waitUntil } from '../support/processes';
import { deleteRedisPrefix } from '../support/services';
import { createTestDatabase, dropTestDatabase } from '../support/test-database';

jest.setTimeout(120_000);

/** npm (or npx) running a command in the checkout, as an operator types it; its output kept for failures. */
function npm(command: 'npm' | 'npx', args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return { child, exited, output: () => output };
}

/** Every process below `child` (Linux /proc), so a test can tell whether the service outlived npm. */
function descendants(child: ChildProcess): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent pid is the 2nd field after the parenthesised command name.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [p, parent] of parents) {
      if (parent === pid) {
        found.push(p);
        walk(p);
      }
    }
  };
  walk(child.pid!);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Stopping the command stops the service (issue 57 item 10): `npm start` and `npx pns sandbox`
 * pass SIGTERM and SIGINT on (docs/operations.md "Processes and ports", Shutdown), so its ports close.
 */
describe('a signal to npm reaches the service', () => {
  const started: { child: ChildProcess; pids: number[] }[] = [];
  afterAll(() => {
    // Whatever a failed test left running.
    for (const { child, pids } of started) for (const pid of [child.pid!, ...pids]) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  beforeAll(() => assertBuilt());

  describe('npm start', () => {
    let database: { name: string; url: string };
    const queuePrefix = `test-${randomBytes(6).toString('hex')}`;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(async () => {
      await dropTestDatabase(database.name);
      await deleteRedisPrefix(queuePrefix);
    });

    it.each(['SIGTERM', 'SIGINT'] as const)('%s to npm stops the service: its port closes and no process is left', async (signal) => {
      const port = await freePort();
      const run = npm('npm', ['start'], childEnv(serviceEnv({ databaseUrl: database.url, queuePrefix }, { PORT: String(port) })));
      await waitUntil(async () => (await probePort(port)) === 'open', `npm start to serve on ${port}:\n${run.output()}`, 60_000);
      const below = descendants(run.child);
      started.push({ child: run.child, pids: below });
      expect(below.length).toBeGreaterThan(0);

      run.child.kill(signal);
      await run.exited;
      await waitUntil(async () => (await probePort(port)) === 'ECONNREFUSED', `port ${port} to close after ${signal} to npm:\n${run.output()}`, 30_000);
      await waitUntil(() => below.every((pid) => !alive(pid)), `the processes below npm (${below.join(', ')}) to exit`, 30_000);
    });
  });

  describe('npx pns sandbox', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'pns-sandbox-signals-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('SIGTERM to npx stops the sandbox: its five ports close', async () => {
      const run = npm(
        'npx',
        ['--no-install', 'pns', 'sandbox', '--port', '0', '--dir', dir],
        childEnv({ APP_KEY: undefined, DATABASE_URL: undefined, REDIS_URL: undefined, NODE_EXTRA_CA_CERTS: undefined }),
      );
      await waitUntil(() => run.output().includes('"url"'), `the JSON line of npx pns sandbox:\n${run.output()}`, 60_000);
      const below = descendants(run.child);
      started.push({ child: run.child, pids: below });
      // The API, APNs, FCM, Web Push and Huawei.
      const ports = below.flatMap((pid) => listeningPorts(pid) ?? []);
      expect(ports).toHaveLength(5);
      for (const port of ports) expect(await probePort(port)).toBe('open');

      run.child.kill('SIGTERM');
      await run.exited;
      await waitUntil(
        async () => (await Promise.all(ports.map((port) => probePort(port)))).every((state) => state === 'ECONNREFUSED'),
        `ports ${ports.join(', ')} to close after SIGTERM to npx:\n${run.output()}`,
        30_000,
      );
      await waitUntil(() => below.every((pid) => !alive(pid)), `the processes below npx (${below.join(', ')}) to exit`, 30_000);
    });
  });
});
