import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { resolve } from 'node:path';
import { VARIABLES } from '../../src/config/env';
import { TEST_QUEUE_BACKEND, TEST_REDIS_URL } from './services';

/**
 * Running the BUILT service and CLI (dist/) as child processes, as an operator would. `npm test`
 * builds first; `npx jest <file>` needs an earlier `npm run build`.
 */
export const ROOT = resolve(__dirname, '../..');
/** TEST_DIST_DIR points the tests at another build of the same tree (default: dist/). */
export const DIST_DIR = resolve(ROOT, process.env.TEST_DIST_DIR ?? 'dist');
export const BUILT_CLI = resolve(DIST_DIR, 'src/cli.js');
export const BUILT_MAIN = resolve(DIST_DIR, 'src/main.js');

/** A valid APP_KEY (32 bytes, base64), the same one test/support/setup-env.ts uses. */
export const TEST_APP_KEY = 'dGVzdC1rZXktdGVzdC1rZXktdGVzdC1rZXktdGVzdC0=';

export function assertBuilt(): void {
  for (const file of [BUILT_CLI, BUILT_MAIN]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (\`npm test\` does).`);
  }
}

export type ChildEnv = Record<string, string | undefined>;

/**
 * The environment of a child: this process's (PATH, HOME...) without any of the service's
 * variables nor NODE_ENV, plus `extra` (an undefined value removes the variable).
 */
export function childEnv(extra: ChildEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const key of [...VARIABLES, 'NODE_ENV', 'TEST_LOGS']) delete out[key];
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete out[key];
    else out[key] = value;
  }
  return out;
}

/**
 * The environment of a built service (or CLI) on a test's own database and queue prefix:
 * NODE_ENV=test keeps the checkout's .env out, and the metrics listener is off unless `extra`
 * sets METRICS_PORT, so services and test files never compete for a port.
 */
export function serviceEnv(stores: { databaseUrl: string; queuePrefix: string }, extra: ChildEnv = {}): ChildEnv {
  return {
    DATABASE_URL: stores.databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_BACKEND: TEST_QUEUE_BACKEND,
    QUEUE_PREFIX: stores.queuePrefix,
    APP_KEY: TEST_APP_KEY,
    NODE_ENV: 'test',
    METRICS_PORT: '0',
    // As test/support/setup-env.ts: the loopback Web Push fake is https://localhost:<port>.
    WEB_PUSH_ALLOWED_HOSTS: 'localhost',
    ...extra,
  };
}

export interface RunResult {
  /** exit code, or null when killed by a signal */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a built script to completion (`node <script> ...args`). Never rejects on a non-zero exit. */
export function runNode(script: string, args: string[], options: { env: ChildEnv; cwd?: string; timeoutMs?: number }): Promise<RunResult> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [script, ...args],
      { cwd: options.cwd ?? ROOT, env: childEnv(options.env), timeout: options.timeoutMs ?? 90_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const failure = error as (Error & { code?: unknown; signal?: NodeJS.Signals | null }) | null;
        done({
          code: failure ? (typeof failure.code === 'number' ? failure.code : null) : 0,
          signal: failure?.signal ?? null,
          stdout: String(stdout),
          stderr: String(stderr),
        });
      },
    );
  });
}

export const runCli = (args: string[], options: { env: ChildEnv; cwd?: string; timeoutMs?: number }) => runNode(BUILT_CLI, args, options);

/** An app and an all-abilities token made through the built CLI, as an operator would: the token. */
export async function createTokenWithCli(databaseUrl: string, appName: string): Promise<string> {
  const env = { DATABASE_URL: databaseUrl, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test' };
  const app = await runCli(['apps:create', '--name', appName], { env });
  const created = await runCli(['tokens:create', '--app', JSON.parse(app.stdout).id, '--abilities', '*'], { env });
  if (created.code !== 0) throw new Error(`tokens:create failed: ${created.stderr}`);
  return JSON.parse(created.stdout).token;
}

/** Non-empty lines of a stream's output. */
export const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

/** Runs `tasks` with at most `limit` at a time; results in order. */
export async function inParallel<T>(tasks: (() => Promise<T>)[], limit = 6): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** A port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Resolves with 'open' when a TCP connection to the port succeeds, else with the error code. */
export function probePort(port: number, host = '127.0.0.1'): Promise<string> {
  return new Promise((done) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      done('open');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    socket.connect(port, host);
  });
}

/** Polls `condition` until it holds; a generous deadline only guards against hanging forever. */
export async function waitUntil(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The TCP sockets a process is listening on (Linux /proc): local addresses (hex, as in
 * /proc/net/tcp{,6}) by port, or null where /proc is not available. Sockets are matched by inode
 * between /proc/<pid>/fd and /proc/<pid>/net/tcp{,6}.
 */
export function listeningSockets(pid: number): Map<number, string[]> | null {
  if (!existsSync(`/proc/${pid}/fd`)) return null;
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch {
      // the descriptor was closed meanwhile
    }
  }
  const sockets = new Map<number, string[]>();
  for (const table of ['tcp', 'tcp6']) {
    const file = `/proc/${pid}/net/${table}`;
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT, st 0A is LISTEN, the inode is field 9.
      if (fields.length > 9 && fields[3] === '0A' && inodes.has(fields[9])) {
        const [address, hexPort] = fields[1].split(':');
        const port = parseInt(hexPort, 16);
        sockets.set(port, [...(sockets.get(port) ?? []), address]);
      }
    }
  }
  return sockets;
}

/** TCP ports a process is listening on, ascending, or null where /proc is not available. */
export function listeningPorts(pid: number): number[] | null {
  const sockets = listeningSockets(pid);
  return sockets && [...sockets.keys()].sort((a, b) => a - b);
}

/** The built service (dist/src/main.js) running as a child process. */
export class ServiceProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  private constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((done) =>
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        done(this.exit);
      }),
    );
  }

  /** `nodeArgs` go before the script (e.g. --cpu-prof, which NODE_OPTIONS does not allow). */
  static start(env: ChildEnv, cwd = ROOT, nodeArgs: string[] = []): ServiceProcess {
    return ServiceProcess.script(BUILT_MAIN, env, cwd, nodeArgs);
  }

  /** Another Node script than the service (a loopback provider of a test's own), run and killed the same way. */
  static script(script: string, env: ChildEnv, cwd = ROOT, nodeArgs: string[] = []): ServiceProcess {
    const child = spawn(process.execPath, [...nodeArgs, script], { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    const service = new ServiceProcess(child);
    running.add(service);
    void service.exited.then(() => running.delete(service));
    return service;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  /** Resolves once the combined output matches; fails early if the process exits first. */
  async waitForOutput(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
    await waitUntil(
      () => {
        if (pattern.test(this.stdout + this.stderr)) return true;
        if (!this.alive) throw new Error(`process exited (${JSON.stringify(this.exit)}) before printing ${pattern}:\n${this.output()}`);
        return false;
      },
      `${pattern} in the service output:\n${this.output()}`,
      timeoutMs,
    );
  }

  /** Resolves once GET `path` answers (any status); fails early if the process exits first. */
  async waitForHttp(port: number, path = '/health/live', timeoutMs = 20_000): Promise<void> {
    await waitUntil(
      async () => {
        if (!this.alive) throw new Error(`process exited (${JSON.stringify(this.exit)}) before serving HTTP:\n${this.output()}`);
        try {
          await fetch(`http://127.0.0.1:${port}${path}`);
          return true;
        } catch {
          return false;
        }
      },
      `HTTP on port ${port}:\n${this.output()}`,
      timeoutMs,
    );
  }

  /** Sends a signal and waits for the exit (bounded by a generous deadline, then SIGKILL). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20_000) {
    if (this.alive) this.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, fail) => {
      timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        fail(new Error(`process did not exit within ${timeoutMs} ms of ${signal}:\n${this.output()}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.exited, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  output(): string {
    return `--- stdout\n${this.stdout.slice(-4000)}\n--- stderr\n${this.stderr.slice(-4000)}`;
  }
}

const running = new Set<ServiceProcess>();

/** For afterAll: SIGKILLs every service this test file started that is still running. */
export async function killAllServices(): Promise<void> {
  await Promise.all(
    [...running].map(async (service) => {
      service.child.kill('SIGKILL');
      await service.exited;
    }),
  );
}
