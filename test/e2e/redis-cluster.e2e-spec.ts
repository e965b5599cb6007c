// A send end to end on a three-node Redis Cluster (docs/operations.md, Scaling): the built api and
// worker with REDIS_CLUSTER_NODES and a hash-tagged QUEUE_PREFIX, and everything that uses Redis
// through it: queues and workers, the rate limiter, readiness, the queue-depth metrics and the
// queue dashboard. The cluster is made from the local redis-server binary, on free ports in a
// temporary directory, and killed afterwards; the shared Redis is not touched.
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { Client } from 'pg';
import { APNS_TOPIC, startFakeProviders, type FakeProviders } from '../support/providers';
import { generateApnsKey } from '../fakes';
import { apnsToken, fcmToken } from '../support/factories';
import { freePort, probePort, runCli, ServiceProcess, serviceEnv, TEST_APP_KEY, waitUntil } from '../support/processes';
import { useBuiltServices } from '../support/use-built-services';

jest.setTimeout(120_000);

const run = promisify(execFile);

/** Three masters, no replicas: the smallest cluster `redis-cli --cluster create` accepts. */
class LocalRedisCluster {
  readonly ports: number[] = [];
  private readonly nodes: ChildProcess[] = [];
  private dir = '';

  get seeds(): string {
    return this.ports.map((port) => `127.0.0.1:${port}`).join(',');
  }

  async start(): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), 'pns-redis-cluster-'));
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      // The cluster bus port is given too: the default, port + 10000, may be taken or out of range.
      const busPort = await freePort();
      this.ports.push(port);
      const node = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(busPort),
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
        ],
        { cwd: this.dir, stdio: 'ignore' },
      );
      this.nodes.push(node);
    }
    await waitUntil(async () => (await Promise.all(this.ports.map((port) => probePort(port)))).every((state) => state === 'open'), 'the Redis nodes to listen');
    await run('redis-cli', ['--cluster', 'create', ...this.ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes']);
    await waitUntil(async () => {
      const states = await Promise.all(this.ports.map(async (port) => (await run('redis-cli', ['-p', String(port), 'cluster', 'info'])).stdout));
      return states.every((info) => info.includes('cluster_state:ok'));
    }, 'cluster_state:ok on every node');
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map((node) =>
        node.exitCode !== null || node.signalCode !== null ? Promise.resolve() : new Promise((done) => node.once('exit', done).kill('SIGKILL')),
      ),
    );
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('on a three-node Redis Cluster, with a hash-tagged QUEUE_PREFIX', () => {
  const stores = useBuiltServices();
  const cluster = new LocalRedisCluster();
  let fakes: FakeProviders;
  let dir: string;
  let prefix: string;
  let api: ServiceProcess;
  let worker: ServiceProcess;
  let apiPort: number;
  let metricsPort: number;
  let token: string;
  let limitedToken: string;
  let notificationId: string;

  const RATE_LIMIT = 20;
  const ADMIN = { user: 'ops', password: 'a-long-dashboard-password' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pns-cluster-e2e-'));
    prefix = `{${stores.queuePrefix}}`;
    [fakes] = await Promise.all([startFakeProviders(), cluster.start()]);

    const cli = { env: { DATABASE_URL: stores.database.url, APP_KEY: TEST_APP_KEY, NODE_ENV: 'test' } };
    const app = JSON.parse((await runCli(['apps:create', '--name', 'Cluster'], cli)).stdout);
    const key = generateApnsKey();
    fakes.apns.addKey(key);
    writeFileSync(join(dir, 'apns.p8'), key.privateKeyPem);
    writeFileSync(join(dir, 'fcm.json'), JSON.stringify(fakes.fcm.createServiceAccount('cluster-e2e')));
    const credentials = await runCli(
      [
        'apps:credentials',
        '--app',
        app.id,
        '--apns-key-file',
        join(dir, 'apns.p8'),
        '--apns-key-id',
        key.keyId,
        '--apns-team-id',
        key.teamId,
        '--apns-topic',
        APNS_TOPIC,
        '--apns-production',
        'false',
        '--fcm-service-account-file',
        join(dir, 'fcm.json'),
      ],
      cli,
    );
    expect(credentials.code).toBe(0);
    const newToken = async () => JSON.parse((await runCli(['tokens:create', '--app', app.id, '--abilities', '*'], cli)).stdout).token as string;
    [token, limitedToken] = [await newToken(), await newToken()];

    const env = (extra: Record<string, string>) =>
      serviceEnv(
        { databaseUrl: stores.database.url, queuePrefix: prefix },
        // With seed nodes, REDIS_URL gives only credentials and TLS: pointed at a port nothing listens
        // on, it proves that every connection goes to the cluster.
        { ...fakes.env, REDIS_URL: 'redis://127.0.0.1:1', REDIS_CLUSTER_NODES: cluster.seeds, ...extra },
      );
    [apiPort, metricsPort] = [await freePort(), await freePort()];
    api = ServiceProcess.start(
      env({
        APP_MODE: 'api',
        PORT: String(apiPort),
        METRICS_PORT: String(metricsPort),
        RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
        ADMIN_USER: ADMIN.user,
        ADMIN_PASSWORD: ADMIN.password,
      }),
    );
    worker = ServiceProcess.start(env({ APP_MODE: 'worker', METRICS_PORT: '0' }));
    await Promise.all([api.waitForHttp(apiPort), worker.waitForOutput(/Started in worker mode/)]);
  });

  afterAll(async () => {
    await Promise.all([api, worker].filter(Boolean).map((service) => service.stop('SIGKILL')));
    await Promise.all([cluster.stop(), fakes?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (path: string, options: { method?: string; body?: unknown; bearer?: string; headers?: Record<string, string> } = {}) =>
    fetch(`http://127.0.0.1:${apiPort}${path}`, {
      method: options.method ?? 'GET',
      headers: {
        ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
        'content-type': 'application/json',
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });

  it('reports Redis ready', async () => {
    const ready = await call('/health/ready');
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { info: Record<string, { status: string }> }).info.redis).toEqual({ status: 'up', backend: 'redis' });
  });

  it('delivers a send to the fake providers: every installation accepted, through queues in the cluster', async () => {
    const installations = [
      { platform: 'ios', push_token: apnsToken() },
      { platform: 'ios', push_token: apnsToken() },
      { platform: 'android', push_token: fcmToken() },
      { platform: 'android', push_token: fcmToken() },
    ];
    for (const [i, body] of installations.entries()) {
      const res = await call(`/api/v1/installations/cluster-${i}`, { method: 'PUT', bearer: token, body: { ...body, user_id: 'grace' } });
      expect(res.status).toBe(201);
    }
    const sent = await call('/api/v1/notifications', {
      method: 'POST',
      bearer: token,
      body: { notification: { title: 'Hello', body: 'From a cluster' }, recipients: { user_ids: ['grace'] } },
    });
    expect(sent.status).toBe(202);
    notificationId = ((await sent.json()) as { data: { id: string } }).data.id;

    // Polled in PostgreSQL, not through the API, so that only the rate-limit test spends requests.
    const db = new Client({ connectionString: stores.database.url });
    await db.connect();
    try {
      await waitUntil(
        async () => (await db.query('SELECT completed_at FROM notifications WHERE id = $1', [notificationId])).rows[0]?.completed_at != null,
        `the notification to complete:\n${worker.output()}`,
        60_000,
      );
    } finally {
      await db.end();
    }
    const read = await call(`/api/v1/notifications/${notificationId}`, { bearer: token });
    expect(((await read.json()) as { data: { statistics: object } }).data.statistics).toMatchObject({ installations: 4, accepted: 4, failed: 0 });
    expect(fakes.apns.requests.filter((request) => request.status === 200)).toHaveLength(2);
    expect(fakes.fcm.deliveredCount()).toBe(2);

    // The queue keys are in the cluster, all in the one slot of the prefix's hash tag.
    const client = new Cluster(
      cluster.ports.map((port) => ({ host: '127.0.0.1', port })),
      { lazyConnect: true },
    );
    try {
      await client.connect();
      const keysByNode = await Promise.all(client.nodes('master').map((node) => node.keys(`${prefix}:*`)));
      const holding = keysByNode.filter((keys) => keys.length > 0);
      expect(holding).toHaveLength(1);
      expect(holding[0]).toEqual(expect.arrayContaining([`${prefix}:fanout:meta`, `${prefix}:deliver:meta`]));
      const slots = new Set(await Promise.all(holding[0].map((key) => client.cluster('KEYSLOT', key))));
      expect(slots.size).toBe(1);
    } finally {
      client.disconnect();
    }
  });

  it('samples queue depth from the cluster for /metrics, and serves the queue dashboard', async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^pns_queue_jobs\{[^}]*queue="deliver"[^}]*\} \d+$/m);
    expect(metrics).not.toContain('Could not sample');

    // One door (docs/operations.md#queue-dashboard): the operator dashboard's session opens it.
    const session = await call('/admin/api/session', {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}` },
    });
    expect(session.status).toBe(200);
    const cookie = session.headers.get('set-cookie')!.split(';')[0];
    const board = await call('/admin/queues/api/queues', { headers: { cookie } });
    expect(board.status).toBe(200);
    const names = ((await board.json()) as { queues: { name: string }[] }).queues.map((queue) => queue.name);
    expect(names).toEqual(expect.arrayContaining(['fanout', 'deliver']));
  });

  it('enforces the API rate limit with counters in the cluster', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT + 5; i++) statuses.push((await call(`/api/v1/notifications/${notificationId}`, { bearer: limitedToken })).status);

    expect(statuses.slice(0, RATE_LIMIT)).toEqual(new Array(RATE_LIMIT).fill(200));
    expect(statuses.slice(RATE_LIMIT)).toEqual(new Array(5).fill(429));
    expect(api.output()).not.toContain('Rate limit not enforced');
  });
});
