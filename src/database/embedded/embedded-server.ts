import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { HolderRegistry, isAlive, self, sleepSync } from './holders';
import { postgresBinaries } from './postgres-binaries';

/** PostgreSQL refuses to run as root: under root the server runs as this system user, created if missing. */
export const SERVER_USER = 'pns-postgres';
const DATABASE = 'pns';
const USER = 'pns';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 60_000;

export interface EmbeddedDatabase {
  url: string;
  /** What happened, in one line for the log. */
  summary: string;
  /** Leaves the server; the last process to leave stops it. Synchronous: it also runs in process.on('exit'). */
  release(): void;
}

interface Account {
  uid: number;
  gid: number;
}

interface Running {
  pid: number;
  port: number;
}

const execFileAsync = promisify(execFile);
const PG_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' };

/** Joins (or starts) the PostgreSQL of `dataDir`, shared by every process of that directory. */
export async function openEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const binaries = postgresBinaries();
  const account = serverAccount();
  if (account) reachable(account, dir, binaries.root);
  const registry = new HolderRegistry(dir);
  const me = self();
  const pgdata = join(dir, 'postgres');
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    const unlock = registry.lock(me, STOP_TIMEOUT_MS);
    try {
      registry.remove(me);
      if (registry.living().length === 0) stopServer(pgdata);
    } finally {
      unlock();
    }
  };
  const started = Date.now();
  const lock = registry.lock(me, START_TIMEOUT_MS);
  let locked = true;
  const unlock = () => {
    if (locked) lock();
    locked = false;
  };
  try {
    registry.add(me);
    process.on('exit', () => {
      try {
        release();
      } catch (error) {
        process.stderr.write(`Embedded PostgreSQL in ${dir}: ${(error as Error).message}\n`);
      }
    });
    const password = readPassword(dir);
    let initialised = false;
    if (!existsSync(join(pgdata, 'PG_VERSION'))) {
      await initialise(binaries.initdb, dir, pgdata, password, account);
      initialised = true;
    }
    let running = runningServer(pgdata);
    const reused = running !== undefined;
    if (running) await waitUntilReady(running, password, () => true);
    else running = await startServer(binaries.postgres, dir, pgdata, password, account);
    await ensureDatabase(running.port, password);
    const url = `postgres://${USER}:${password}@127.0.0.1:${running.port}/${DATABASE}`;
    const how = reused ? 'joined the one running' : `${initialised ? 'created and started' : 'started'} it in ${Date.now() - started} ms`;
    return { url, release, summary: `Embedded PostgreSQL (DATABASE_URL=embedded, data in ${dir}) on 127.0.0.1:${running.port}: ${how}` };
  } catch (error) {
    unlock();
    release();
    throw error;
  } finally {
    unlock();
  }
}

/** The server of `pgdata` whose postmaster is alive, from PostgreSQL's own postmaster.pid (pid, ..., port on line 4). */
function runningServer(pgdata: string): Running | undefined {
  const file = join(pgdata, 'postmaster.pid');
  for (const deadline = Date.now() + STOP_TIMEOUT_MS; ; sleepSync(100)) {
    let lines: string[];
    try {
      lines = readFileSync(file, 'utf8').split('\n');
    } catch {
      return undefined;
    }
    const pid = Number(lines[0]);
    if (!isAlive({ pid, start: '' }) || !isPostgres(pid)) return undefined;
    // A server shutting down is waited for, then started again.
    if (lines[7]?.trim() !== 'stopping') return { pid, port: Number(lines[3]) };
    if (Date.now() > deadline) throw new Error(`the embedded PostgreSQL (pid ${pid}) is still stopping after ${STOP_TIMEOUT_MS} ms`);
  }
}

/** False when the pid of a stale postmaster.pid now names another program. */
function isPostgres(pid: number): boolean {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`)) === 'postgres';
  } catch {
    return true;
  }
}

async function startServer(postgres: string, dir: string, pgdata: string, password: string, account?: Account): Promise<Running> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const logFile = join(dir, 'postgres.log');
    const log = openSync(logFile, 'w', 0o600);
    const args = ['-D', pgdata, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
    // Detached, so it outlives the process that started it while others still use it.
    const child = spawn(postgres, args, { detached: true, stdio: ['ignore', log, log], env: PG_ENV, ...account });
    closeSync(log);
    let exited = false;
    child.on('exit', () => (exited = true));
    child.unref();
    try {
      await waitUntilReady({ pid: child.pid!, port }, password, () => !exited);
      return { pid: child.pid!, port };
    } catch (error) {
      const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' | ');
      // Another program took the free port between our probe and PostgreSQL's bind.
      if (exited && /could not (bind|create any TCP\/IP sockets)/.test(tail) && attempt < 3) continue;
      if (!exited) process.kill(child.pid!, 'SIGINT');
      throw new Error(`the embedded PostgreSQL did not start (${(error as Error).message}): ${tail} (log: ${logFile})`, { cause: error });
    }
  }
}

async function waitUntilReady(server: Running, password: string, running: () => boolean): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const client = new Client({ host: '127.0.0.1', port: server.port, user: USER, password, database: 'postgres', connectionTimeoutMillis: 2_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      void client.end().catch(() => undefined);
      if (!running()) throw new Error('it exited', { cause: error });
      if (Date.now() > deadline) throw new Error(`not ready after ${START_TIMEOUT_MS} ms: ${(error as Error).message}`, { cause: error });
      await new Promise((done) => setTimeout(done, 50));
    }
  }
}

/** Fast shutdown (SIGINT: sessions end, a checkpoint is written), waited for until postmaster.pid is gone. */
function stopServer(pgdata: string): void {
  const server = runningServer(pgdata);
  if (!server) return;
  process.kill(server.pid, 'SIGINT');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (existsSync(join(pgdata, 'postmaster.pid')) && isAlive({ pid: server.pid, start: '' })) {
    if (Date.now() > deadline) throw new Error(`PostgreSQL (pid ${server.pid}) did not stop within ${STOP_TIMEOUT_MS} ms`);
    sleepSync(20);
  }
}

/** initdb into a staging folder renamed when complete, so a crash mid-way leaves no half cluster behind. */
async function initialise(initdb: string, dir: string, pgdata: string, password: string, account?: Account): Promise<void> {
  const staging = join(dir, 'postgres.init');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o700 });
  const pwfile = join(tmpdir(), `pns-pg-${randomBytes(8).toString('hex')}`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (account) {
      chownSync(staging, account.uid, account.gid);
      chownSync(pwfile, account.uid, account.gid);
    }
    const args = ['-D', staging, '-U', USER, '--auth=scram-sha-256', `--pwfile=${pwfile}`, '--encoding=UTF8', '--no-locale', '--no-instructions'];
    await execFileAsync(initdb, args, { env: PG_ENV, ...account });
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(`initdb failed: ${(stderr || message).trim().split('\n').at(-1)}`, { cause: error });
  } finally {
    rmSync(pwfile, { force: true });
  }
  rmSync(pgdata, { recursive: true, force: true });
  renameSync(staging, pgdata);
}

async function ensureDatabase(port: number, password: string): Promise<void> {
  const client = new Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

/** The server's password, made once and kept readable by this directory's owner only. */
function readPassword(dir: string): string {
  const file = join(dir, 'password');
  if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Under root: the unprivileged account that runs initdb and postgres. */
function serverAccount(): Account | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (!accountOf(SERVER_USER)) {
    const attempts: [string, string[]][] = [
      ['useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', SERVER_USER]],
      ['adduser', ['-S', '-D', '-H', '-h', '/nonexistent', '-s', '/sbin/nologin', SERVER_USER]],
    ];
    const made = attempts.some(([command, args]) => {
      try {
        execFileSync(command, args, { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    });
    if (!made || !accountOf(SERVER_USER)) {
      throw new Error(
        `DATABASE_URL=embedded under root: PostgreSQL refuses root, and the system user ${SERVER_USER} could not be created; create it, or run as another user`,
      );
    }
    process.stderr.write(`Created the system user ${SERVER_USER} to run the embedded PostgreSQL (PostgreSQL refuses to run as root).\n`);
  }
  return accountOf(SERVER_USER);
}

function accountOf(name: string): Account | undefined {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/** The server's account must traverse every folder above its data and binaries; the data folder itself is opened to it. */
function reachable(account: Account, dataDir: string, binaries: string): void {
  const dataMode = statSync(dataDir).mode;
  if ((dataMode & 0o001) === 0) chmodSync(dataDir, (dataMode & 0o777) | 0o001);
  for (const target of [dataDir, binaries]) {
    for (let folder = dirname(target); ; folder = dirname(folder)) {
      const { mode, uid, gid } = statSync(folder);
      const bit = uid === account.uid ? 0o100 : gid === account.gid ? 0o010 : 0o001;
      if ((mode & bit) === 0) {
        throw new Error(
          `DATABASE_URL=embedded under root: PostgreSQL runs as ${SERVER_USER}, which cannot enter ${folder} (chmod o+x ${folder}, or move PNS_DATA_DIR, or run as another user)`,
        );
      }
      if (folder === dirname(folder)) break;
    }
  }
}
