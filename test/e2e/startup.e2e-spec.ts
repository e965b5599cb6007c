import { ChildProcess, spawn } from 'node:child_process';
import { parseEnv, WORKER_METRICS_PORT } from '../../src/config/env';
import { MIGRATIONS } from '../../src/database/migrations';
import {
  ChildEnv,
  createTokenWithCli,
  freePort,
  lines,
  listeningSockets,
  probePort,
  runCli,
  serviceEnv,
  ServiceProcess,
  TEST_APP_KEY,
  waitUntil,
} from '../support/processes';
import { databaseUrl, withAdminClient } from '../support/services';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestDatabase, dropTestDatabase, testDatabaseName } from '../support/test-database';
import { useBuiltServices } from '../support/use-built-services';

/**
 * Start-up and outages, on the built service (issues 13.1-3, 13.10, 18.3-4): Redis or
 * PostgreSQL unreachable at start or while running, a database not yet migrated, default ports
 * of an api and a worker on one host, and HOST / METRICS_HOST.
 */
// Generous: the machine running these may be busy, and each test starts a Node process or two.
jest.setTimeout(150_000);

interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

async function call(port: number, path: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // left as text: the assertions say what was expected
  }
  return { status: res.status, body, headers: res.headers };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' });
const SEND = { recipients: { user_ids: ['nobody-here'] }, notification: { title: 'Hi', body: 'There' } };

/** Every line the process wrote, parsed: fails on any line that is not JSON. */
function jsonLines(service: ServiceProcess): { level: number; msg: string; context?: string }[] {
  return lines(service.stdout + service.stderr).map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      throw new Error(`not a JSON log line: ${line}\n${service.output()}`);
    }
  });
}

/** A redis-server of this test's own, on `port`, without persistence. */
function startRedis(port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
}

async function stopRedis(redis: ChildProcess | undefined): Promise<void> {
  if (!redis || redis.exitCode !== null) return;
  const exited = new Promise((done) => redis.once('exit', done));
  redis.kill('SIGKILL');
  await exited;
}

/** The Redis outage line's interval in these services: short, so the test sees it repeat without waiting 10 s. */
const REDIS_LOG_INTERVAL_MS = 1_000;

describe('start-up and outages', () => {
  const stores = useBuiltServices();
  let token: string;
  const envFor = (extra: ChildEnv) => serviceEnv({ databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix }, { LOG_LEVEL: 'info', ...extra });

  beforeAll(async () => {
    token = await createTokenWithCli(stores.database.url, 'Startup');
  });

  describe.each(['api', 'all'])('Redis unreachable at start, APP_MODE=%s', (mode) => {
    let redis: ChildProcess | undefined;
    afterAll(() => stopRedis(redis));

    it('listens at once, is not ready, logs one JSON line per interval, and recovers when Redis comes', async () => {
      const redisPort = await freePort();
      const port = await freePort();
      const started = Date.now();
      const service = ServiceProcess.start(
        envFor({
          APP_MODE: mode,
          PORT: String(port),
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          SWEEP_INTERVAL_MS: '1000',
          REDIS_LOG_INTERVAL_MS: String(REDIS_LOG_INTERVAL_MS),
        }),
      );
      await service.waitForHttp(port, '/health/live', 45_000);
      await redisOutage(service, port, mode, redisPort, started).catch((error: Error) => {
        throw new Error(`${error.message}\n${service.output()}`);
      });
      await service.stop();
    });

    async function redisOutage(service: ServiceProcess, port: number, mode: string, redisPort: number, started: number): Promise<void> {
      const ready = await call(port, '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('5');
      expect(ready.body.error.redis).toEqual(expect.objectContaining({ status: 'down' }));
      expect(ready.body.details.database).toEqual(expect.objectContaining({ status: 'up' }));

      // Kept on purpose: the send is stored in PostgreSQL, and the sweeper queues it once Redis is back.
      const send = await call(port, '/api/v1/notifications', { method: 'POST', headers: bearer(token), body: JSON.stringify(SEND) });
      expect(send.status).toBe(202);
      const read = await call(port, `/api/v1/notifications/${send.body.data.id}`, { headers: bearer(token) });
      expect(read.status).toBe(200);

      // Once the throttled line has repeated (after one interval), however long the machine took to get there.
      await service.waitForOutput(/Redis still unreachable after/);
      const logs = jsonLines(service);
      const redisLines = logs.filter((line) => line.context === 'Redis');
      const intervals = Math.ceil((Date.now() - started) / REDIS_LOG_INTERVAL_MS);
      expect(redisLines.length).toBeGreaterThanOrEqual(1);
      expect(redisLines.length).toBeLessThanOrEqual(intervals + 1);
      expect(redisLines[0].msg).toMatch(/Redis unreachable \(ECONNREFUSED\)/);
      expect(logs.filter((line) => /ECONNREFUSED/.test(line.msg)).length).toBe(redisLines.length);

      redis = startRedis(redisPort);
      await waitUntil(async () => (await call(port, '/health/ready')).status === 200, 'ready once Redis runs', 30_000);
      await service.waitForOutput(/Redis reachable again/);
      if (mode === 'all') {
        // The send accepted during the outage is queued by the sweeper and completes.
        await waitUntil(
          async () => !!(await call(port, `/api/v1/notifications/${send.body.data.id}`, { headers: bearer(token) })).body.data.completed_at,
          'the send accepted during the outage to complete',
          30_000,
        );
      }
      jsonLines(service);
    }
  });

  describe('PostgreSQL unreachable or the database missing at start', () => {
    it('unreachable: one JSON line at once, retries for DATABASE_CONNECT_TIMEOUT_MS, then exit 1 with one line', async () => {
      const pgPort = await freePort();
      const started = Date.now();
      const service = ServiceProcess.start(
        envFor({
          APP_MODE: 'api',
          PORT: String(await freePort()),
          DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/nothing`,
          DATABASE_CONNECT_TIMEOUT_MS: '3000',
        }),
      );
      // Generous bounds: a busy machine may take seconds just to load Node and Nest.
      await service.waitForOutput(/not reachable/, 30_000);
      const exit = await service.exited;
      expect(exit.code).toBe(1);
      expect(Date.now() - started).toBeLessThan(40_000);
      const logs = jsonLines(service);
      expect(logs.map((line) => line.msg)).toEqual([
        expect.stringMatching(new RegExp(`PostgreSQL at 127.0.0.1:${pgPort}/nothing not reachable: connect ECONNREFUSED.*retrying for up to 3 s`)),
        expect.stringMatching(/Failed to start: PostgreSQL at .* not reachable after \d+ s \(DATABASE_CONNECT_TIMEOUT_MS=3000\): connect ECONNREFUSED/),
      ]);
    });

    it('missing database: says so, and starts once the database appears within the timeout', async () => {
      const name = testDatabaseName('startup_late');
      const port = await freePort();
      const service = ServiceProcess.start(
        envFor({ APP_MODE: 'api', PORT: String(port), DATABASE_URL: databaseUrl(name), DATABASE_CONNECT_TIMEOUT_MS: '60000' }),
      );
      try {
        await service.waitForOutput(/does not exist/, 30_000);
        const created = await createTestDatabase(name);
        await service.waitForHttp(port, '/health/live', 30_000);
        await waitUntil(async () => (await call(port, '/health/ready')).status === 200, 'ready', 15_000);
        const logs = jsonLines(service);
        // (The service may connect between CREATE DATABASE and the migrations, and then also say
        // that migrations are pending, and later that they were applied: both right.)
        expect(logs.filter((line) => /PostgreSQL/.test(line.msg)).map((line) => line.msg)).toEqual([
          expect.stringMatching(new RegExp(`database "${created.name}" does not exist .*npx pns setup.*retrying for up to 60 s`)),
          expect.stringMatching(/reachable after \d+ s/),
        ]);
        // Nest's own bootstrap lines went through pino too.
        expect(logs.some((line) => line.context === 'NestFactory')).toBe(true);
        await service.stop();
      } finally {
        await dropTestDatabase(name);
      }
    });
  });

  describe('a database that is not migrated', () => {
    let name: string;
    beforeAll(async () => {
      name = testDatabaseName('startup_unmigrated');
      await withAdminClient((client) => client.query(`CREATE DATABASE "${name}"`));
    });
    afterAll(() => dropTestDatabase(name));

    it('is not ready and answers 503 until migrated, then becomes ready without a restart', async () => {
      const port = await freePort();
      const url = databaseUrl(name);
      const service = ServiceProcess.start(envFor({ APP_MODE: 'api', PORT: String(port), DATABASE_URL: url }));
      await service.waitForHttp(port, '/health/live', 45_000);

      const ready = await call(port, '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.error.migrations.message).toMatch(
        new RegExp(`^${MIGRATIONS.length} database migration\\(s\\) pending .*npx pns migrate.*MIGRATE_ON_START=true`),
      );
      for (const path of ['/api/v1/notifications/00000000-0000-4000-8000-000000000000', '/api/v1/installations/abc']) {
        const res = await call(port, path, { headers: bearer('pns_whatever') });
        expect({ status: res.status, body: res.body }).toEqual({ status: 503, body: { message: 'Service Unavailable.' } });
        expect(res.headers.get('retry-after')).toBe('5');
      }
      const hints = jsonLines(service).filter((line) => /npx pns migrate/.test(line.msg));
      expect(hints).toHaveLength(1);

      const migrated = await runCli(['migrate'], { env: { DATABASE_URL: url, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test' } });
      expect(migrated.code).toBe(0);
      await waitUntil(async () => (await call(port, '/health/ready')).status === 200, 'ready after migrate', 15_000);
      // The schema is there now: an unknown token is refused as such.
      const after = await call(port, '/api/v1/installations/abc', { headers: bearer('pns_whatever') });
      expect(after.status).toBe(401);
      await service.waitForOutput(/migrations applied/);
      jsonLines(service);
      await service.stop();
    });
  });

  describe('PostgreSQL cut while the API runs', () => {
    let proxy: TcpProxy;
    afterAll(() => proxy?.cut());

    it('answers 2xx or 503 with a message and Retry-After, never 500; 2xx again after', async () => {
      const admin = new URL(stores.database.url);
      proxy = new TcpProxy(admin.hostname, Number(admin.port || 5432));
      const proxyPort = await proxy.start();
      const viaProxy = new URL(stores.database.url);
      viaProxy.port = String(proxyPort);
      const port = await freePort();
      const service = ServiceProcess.start(envFor({ APP_MODE: 'api', PORT: String(port), DATABASE_URL: viaProxy.toString() }));
      await service.waitForHttp(port, '/health/live', 45_000);
      const first = await call(port, '/api/v1/notifications', { method: 'POST', headers: bearer(token), body: JSON.stringify(SEND) });
      expect(first.status).toBe(202);
      const id = first.body.data.id;

      const seen: number[] = [];
      const request = async () => {
        const res =
          seen.length % 2 === 0
            ? await call(port, `/api/v1/notifications/${id}`, { headers: bearer(token) })
            : await call(port, '/api/v1/notifications', { method: 'POST', headers: bearer(token), body: JSON.stringify(SEND) });
        seen.push(res.status);
        if (res.status === 503) {
          expect(res.body).toEqual({ message: 'Service Unavailable.' });
          expect(res.headers.get('retry-after')).toBe('5');
        } else {
          expect([200, 202]).toContain(res.status);
        }
        return res.status;
      };

      await proxy.cut();
      const cutUntil = Date.now() + 4_000;
      let readyDuringCut: number | undefined;
      while (Date.now() < cutUntil) {
        await request();
        readyDuringCut ??= (await call(port, '/health/ready')).status;
      }
      expect(seen).toContain(503);
      expect(readyDuringCut).toBe(503);

      await proxy.start();
      await waitUntil(async () => (await request()) !== 503 && (await request()) !== 503, '2xx after PostgreSQL returns', 20_000);
      expect((await call(port, '/health/ready')).status).toBe(200);
      expect(seen).not.toContain(500);
      const logs = jsonLines(service);
      expect(logs.filter((line) => /Unhandled error/.test(line.msg))).toEqual([]);
      await service.stop();
    });
  });

  describe('default ports (issue 18.4)', () => {
    it('an api and a worker started side by side with default ports both run', async () => {
      const api = parseEnv({ APP_MODE: 'api', APP_KEY: TEST_APP_KEY });
      const worker = parseEnv({ APP_MODE: 'worker', APP_KEY: TEST_APP_KEY });
      expect(worker.METRICS_PORT).toBe(WORKER_METRICS_PORT);
      const apiPorts = [api.PORT, api.METRICS_PORT];
      expect(apiPorts).not.toContain(worker.METRICS_PORT);
      for (const port of [...apiPorts, worker.METRICS_PORT]) {
        if ((await probePort(port)) === 'open') throw new Error(`default port ${port} is taken on this machine: this test needs it free`);
      }
      // PORT and METRICS_PORT unset: each mode's defaults.
      const defaults = { PORT: undefined, METRICS_PORT: undefined };
      const apiProcess = ServiceProcess.start(envFor({ APP_MODE: 'api', ...defaults }));
      const workerProcess = ServiceProcess.start(envFor({ APP_MODE: 'worker', ...defaults }));
      await apiProcess.waitForHttp(api.PORT, '/health/live', 45_000);
      await workerProcess.waitForHttp(worker.METRICS_PORT, '/health/live', 45_000);
      await apiProcess.waitForHttp(api.METRICS_PORT);
      expect((await call(api.PORT, '/health/ready')).status).toBe(200);
      expect((await call(worker.METRICS_PORT, '/metrics')).status).toBe(200);
      expect(apiProcess.alive && workerProcess.alive).toBe(true);
      await Promise.all([apiProcess.stop(), workerProcess.stop()]);
    });
  });

  describe('HOST and METRICS_HOST (issue 13.10)', () => {
    it('bind the API and the metrics listener to the given interface', async () => {
      const port = await freePort();
      const metricsPort = await freePort();
      const service = ServiceProcess.start(
        envFor({ APP_MODE: 'api', PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: String(metricsPort), METRICS_HOST: '127.0.0.1' }),
      );
      await service.waitForHttp(port, '/health/live', 45_000);
      await service.waitForHttp(metricsPort, '/metrics', 45_000);
      const addresses = listeningSockets(service.pid);
      // 0100007F is 127.0.0.1 as /proc writes it; every interface would be 00000000 or ::.
      if (addresses) expect(Object.fromEntries(addresses)).toEqual({ [port]: ['0100007F'], [metricsPort]: ['0100007F'] });
      await service.waitForOutput(/on 127\.0\.0\.1 port/);
      await service.stop();
    });

    it.each(['HOST', 'METRICS_HOST'])('%s must be an IP address: the service refuses to start', async (variable) => {
      const service = ServiceProcess.start(envFor({ APP_MODE: 'api', PORT: String(await freePort()), [variable]: 'example.com' }));
      expect((await service.exited).code).toBe(1);
      expect(service.stderr.trim()).toBe(`Invalid environment variable ${variable} must be an IP address (0.0.0.0, ::, 127.0.0.1...)`);
    });
  });
});
