import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import webpush from 'web-push';
import { parse } from 'yaml';
import { FakeApns, FakeFcm, FakeHms, FakeWebPush, generateApnsKey, TEST_CA_PATH, type ApnsKey } from '../../test/fakes';
import { assertBuilt, freePort, runCli, ServiceProcess, TEST_APP_KEY } from '../../test/support/processes';
import { databaseUrl, deleteRedisPrefix, withAdminClient } from '../../test/support/services';
import { dropTestDatabase } from '../../test/support/test-database';

import { APNS_TOPIC } from '../clients';
import { countPostgresOf } from './cpu';

export { APNS_TOPIC };
/** Pool size of the api process, and of the raw `pg` baseline it is compared with. */
export const API_POOL_SIZE = 20;

/**
 * Everything one benchmark needs, on loopback: the four fake providers (in this process), a fresh
 * database, a Redis prefix of its own, an app with credentials for all four providers (set up
 * through the built CLI, as an operator would) and the built service as separate `api` and
 * `worker` processes.
 */
export interface Stack {
  apns: FakeApns;
  fcm: FakeFcm;
  web: FakeWebPush;
  hms: FakeHms;
  apnsKey: ApnsKey;
  databaseName: string;
  databaseUrl: string;
  queuePrefix: string;
  appId: string;
  /** Bearer token holding every ability. */
  token: string;
  apiPort: number;
  api?: ServiceProcess;
  worker?: ServiceProcess;
  /** The harness's own connection pool (seeding and reading results; never the thing measured). */
  db: Pool;
  /** Another app like the first (its own id and token, the same fakes' credentials). */
  addApp(name: string): Promise<{ appId: string; token: string }>;
  startApi(extraEnv?: Record<string, string>): Promise<void>;
  stopApi(): Promise<void>;
  startWorker(extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  stopWorker(): Promise<void>;
  /** With the worker stopped: forgets every notification and queued job (the API benchmark's sends). */
  discardNotifications(): Promise<void>;
  /** Clears what the fakes recorded (they keep every request in memory). */
  resetFakes(): void;
  stop(): Promise<void>;
}

export async function startStack(label: string): Promise<Stack> {
  assertBuilt();
  const apns = new FakeApns();
  const fcm = new FakeFcm();
  // A push service never decrypts; decrypting every message here would cost the machine the
  // service is measured on about a third of a core during a campaign (bench/HISTORY.md "The fake Web Push decrypts on read").
  const web = new FakeWebPush({ decrypt: process.env.BENCH_WEB_PUSH_DECRYPT === 'every' ? 'every' : 'on-read' });
  const hms = new FakeHms();
  await Promise.all([apns.start(), fcm.start(), web.start(), hms.start()]);
  apns.allowTopic(APNS_TOPIC);

  // Not push_test_*: jest's global setup drops those, and tests may start while a bench runs.
  const databaseName = `push_bench_test_${label}_${randomBytes(4).toString('hex')}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE "${databaseName}"`));
  countPostgresOf(databaseName);
  // The plan of each statement slower than N ms in the server log (auto_explain): the plans the
  // service's sessions keep, which an EXPLAIN elsewhere need not reproduce (bench/HISTORY.md "CPU per delivery toward the bare client").
  const explainMs = process.env.BENCH_PG_AUTO_EXPLAIN_MS;
  if (explainMs) {
    await withAdminClient(async (client) => {
      await client.query(`ALTER DATABASE "${databaseName}" SET session_preload_libraries = 'auto_explain'`);
      await client.query(`ALTER DATABASE "${databaseName}" SET auto_explain.log_min_duration = '${Number(explainMs)}ms'`);
      // BENCH_PG_AUTO_EXPLAIN_ANALYZE=1: with each node's actual rows, time and buffers (it slows every statement).
      if (process.env.BENCH_PG_AUTO_EXPLAIN_ANALYZE === '1') {
        for (const setting of ['log_analyze', 'log_buffers', 'log_nested_statements']) {
          await client.query(`ALTER DATABASE "${databaseName}" SET auto_explain.${setting} = on`);
        }
      }
    });
  }
  // Each statement's CPU in the server log, for bench/tools/pg-statements.ts (bench/HISTORY.md "Outcomes written as they come").
  if (process.env.BENCH_PG_STATEMENT_STATS === '1') {
    await withAdminClient((client) => client.query(`ALTER DATABASE "${databaseName}" SET log_statement_stats = on`));
  }
  const database = { url: databaseUrl(databaseName) };
  const queuePrefix = `bench-${randomBytes(6).toString('hex')}`;
  const baseEnv: Record<string, string> = {
    DATABASE_URL: database.url,
    QUEUE_PREFIX: queuePrefix,
    APP_KEY: TEST_APP_KEY,
    NODE_ENV: 'production',
  };

  const cli = async (...args: string[]) => {
    const result = await runCli(args, { env: baseEnv });
    if (result.code !== 0) throw new Error(`cli ${args[0]} failed: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  // The real migrations, through the operator command.
  await cli('migrate');
  const apnsKey = generateApnsKey();
  apns.addKey(apnsKey);
  const account = fcm.createServiceAccount('bench');
  const hmsClient = hms.createClient();
  const vapid = webpush.generateVAPIDKeys();
  web.expectVapidPublicKey(vapid.publicKey);
  /** An app with a token holding every ability and credentials for the four fakes (the same keys for every app). */
  const addApp = async (name: string): Promise<{ appId: string; token: string }> => {
    const appId: string = (await cli('apps:create', '--name', name)).id;
    const token: string = (await cli('tokens:create', '--app', appId, '--abilities', '*')).token;
    const dir = mkdtempSync(join(tmpdir(), 'pns-bench-'));
    try {
      writeFileSync(join(dir, 'AuthKey.p8'), apnsKey.privateKeyPem);
      writeFileSync(join(dir, 'service-account.json'), JSON.stringify(account));
      await cli(
        'apps:credentials',
        '--app',
        appId,
        '--apns-key-file',
        join(dir, 'AuthKey.p8'),
        '--apns-key-id',
        apnsKey.keyId,
        '--apns-team-id',
        apnsKey.teamId,
        '--apns-topic',
        APNS_TOPIC,
        '--apns-production',
        'false',
        '--fcm-service-account-file',
        join(dir, 'service-account.json'),
        '--vapid-subject',
        'mailto:bench@example.com',
        '--vapid-public-key',
        vapid.publicKey,
        '--vapid-private-key',
        vapid.privateKey,
        '--hms-app-id',
        hmsClient.app_id,
        '--hms-client-id',
        hmsClient.client_id,
        '--hms-client-secret',
        hmsClient.client_secret,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return { appId, token };
  };
  const { appId, token } = await addApp('Benchmark');

  // Production defaults for everything else (batch sizes, concurrency, retries, log level).
  const serviceEnv: Record<string, string> = {
    ...baseEnv,
    APNS_URL: apns.baseUrl,
    FCM_URL: fcm.baseUrl,
    // The fake push service's endpoints are https://localhost:<port>.
    WEB_PUSH_ALLOWED_HOSTS: 'localhost',
    GOOGLE_TOKEN_URL: fcm.tokenUrl,
    HMS_URL: hms.baseUrl,
    HMS_TOKEN_URL: hms.tokenUrl,
    NODE_EXTRA_CA_CERTS: TEST_CA_PATH,
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    DATABASE_POOL_SIZE: String(API_POOL_SIZE),
  };
  const apiPort = await freePort();
  const db = new Pool({ connectionString: database.url, max: 4 });
  // The services' stdout is kept in memory by ServiceProcess; keep only its tail.
  const trim = setInterval(() => {
    for (const service of [stack.api, stack.worker]) {
      if (service && service.stdout.length > 1e6) service.stdout = service.stdout.slice(-100_000);
    }
  }, 1000);
  trim.unref();

  const stack: Stack = {
    apns,
    fcm,
    web,
    hms,
    apnsKey,
    databaseName,
    databaseUrl: database.url,
    queuePrefix,
    appId,
    token,
    apiPort,
    db,
    addApp,
    async startApi(extraEnv = {}) {
      // Rate limiting off: the benchmark is one token hammering the API on purpose.
      const api = ServiceProcess.start(
        { ...serviceEnv, NODE_OPTIONS: deployedNodeOptions('api'), APP_MODE: 'api', PORT: String(apiPort), RATE_LIMIT_PER_MINUTE: '0', ...extraEnv },
        undefined,
        profiling('api'),
      );
      stack.api = api;
      await api.waitForHttp(apiPort, '/health/live', 60_000);
    },
    async startWorker(extraEnv = {}) {
      // BENCH_WORKER_ENV='{"DELIVERY_CONCURRENCY":"125"}': the worker's settings for a run (investigating).
      const benchEnv = JSON.parse(process.env.BENCH_WORKER_ENV ?? '{}') as Record<string, string>;
      const worker = ServiceProcess.start(
        { ...serviceEnv, NODE_OPTIONS: deployedNodeOptions('worker'), APP_MODE: 'worker', ...benchEnv, ...extraEnv },
        undefined,
        profiling('worker'),
      );
      stack.worker = worker;
      await worker.waitForOutput(/Started in worker mode/, 60_000);
      return worker;
    },
    async stopApi() {
      await stack.api?.stop('SIGTERM', 60_000);
      stack.api = undefined;
    },
    async stopWorker() {
      await stack.worker?.stop('SIGTERM', 60_000);
      stack.worker = undefined;
    },
    async discardNotifications() {
      if (stack.worker) throw new Error('stop the worker first');
      await db.query('TRUNCATE notifications CASCADE');
      await deleteRedisPrefix(queuePrefix);
    },
    resetFakes() {
      apns.reset();
      fcm.reset();
      web.reset();
      hms.reset();
    },
    async stop() {
      clearInterval(trim);
      await Promise.allSettled([stack.api?.stop('SIGTERM', 30_000), stack.worker?.stop('SIGTERM', 30_000)]);
      await db.end();
      await Promise.allSettled([apns.stop(), fcm.stop(), web.stop(), hms.stop()]);
      await dropTestDatabase(databaseName);
      await deleteRedisPrefix(queuePrefix);
    },
  };
  return stack;
}

/**
 * NODE_OPTIONS that docker-compose.yml gives the service of this mode (the worker's heap cap), so
 * the services run here as they are deployed. Empty when it sets none.
 */
export function deployedNodeOptions(mode: 'api' | 'worker'): string {
  const compose = parse(readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string | number | undefined> }>;
  };
  return String(compose.services[mode]?.environment?.NODE_OPTIONS ?? '');
}

/** BENCH_PROFILE_DIR=dir: the services write V8 CPU profiles there when they exit (node --cpu-prof). */
function profiling(mode: string): string[] {
  const dir = process.env.BENCH_PROFILE_DIR;
  // BENCH_WORKER_NODE_ARGS, BENCH_API_NODE_ARGS: extra node flags (heap limits, GC tracing, a preloaded probe) when investigating.
  const extra = (process.env[mode === 'worker' ? 'BENCH_WORKER_NODE_ARGS' : 'BENCH_API_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
  return [...extra, ...(dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, mode)}`] : [])];
}

export const caPem = () => readFileSync(TEST_CA_PATH);
