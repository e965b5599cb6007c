import { Queue } from 'bullmq';
import { request as httpRequest } from 'node:http';
import { Client } from 'pg';
import { FANOUT_QUEUE, fanoutJobId } from '../../src/common/queues';
import { ChildEnv, createTokenWithCli, freePort, listeningPorts, probePort, serviceEnv, ServiceProcess, waitUntil } from '../support/processes';
import { TEST_REDIS_URL } from '../support/services';
import { useBuiltServices } from '../support/use-built-services';

/**
 * docs/api.md#processes: one build, three modes (APP_MODE), and SIGTERM stops accepting, finishes
 * in-flight requests and exits 0. The built service runs as a child process on a free port,
 * against a migrated test database and its own queue prefix.
 */
jest.setTimeout(60_000);

const SEND = { recipients: { user_ids: ['modes-user'] }, notification: { title: 'Hello', body: 'From the modes test' } };

interface Reply {
  status: number;
  body: any;
}

/** A POST whose body is sent only when `release()` is called, after the server has read the headers. */
function pendingPost(port: number, path: string, token: string, body: unknown) {
  const payload = Buffer.from(JSON.stringify(body));
  let release!: () => void;
  let headersRead!: Promise<void>;
  const reply = new Promise<Reply>((done, fail) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      agent: false,
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        'Content-Length': payload.length,
        // The server answers "100 Continue" once it has parsed the headers: the request is then in flight.
        Expect: '100-continue',
        Connection: 'close',
      },
    });
    headersRead = new Promise((resolve) => req.once('continue', () => resolve()));
    release = () => req.end(payload);
    req.once('error', fail);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.once('end', () => done({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
      res.once('error', fail);
    });
    req.flushHeaders();
  });
  return { reply, headersRead, release: () => release() };
}

async function getJson(port: number, path: string): Promise<Reply> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('APP_MODE and graceful shutdown (docs/api.md#processes)', () => {
  const stores = useBuiltServices();
  let token: string;
  /** A notification accepted by the api process, whose fan-out waits for a worker. */
  let queuedId: string | undefined;

  const modeEnv = (mode: string, port: number): ChildEnv =>
    serviceEnv({ databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix }, { APP_MODE: mode, PORT: String(port), LOG_LEVEL: 'info' });

  beforeAll(async () => {
    token = await createTokenWithCli(stores.database.url, 'Modes');
  });

  describe('APP_MODE=api', () => {
    let port: number;
    let service: ServiceProcess;

    beforeAll(async () => {
      port = await freePort();
      service = ServiceProcess.start(modeEnv('api', port));
      await service.waitForHttp(port);
    });
    afterAll(async () => {
      if (service.alive) await service.stop('SIGKILL');
    });

    it('answers GET /health/live with 200', async () => {
      const res = await getJson(port, '/health/live');
      expect(res.status).toBe(200);
    });

    it('answers GET /health/ready with 200, database and redis up', async () => {
      const res = await getJson(port, '/health/ready');
      expect(res.status).toBe(200);
      expect(res.body.details ?? res.body.info).toEqual(
        expect.objectContaining({ database: expect.objectContaining({ status: 'up' }), redis: expect.objectContaining({ status: 'up' }) }),
      );
    });

    it('listens on PORT only', () => {
      const ports = listeningPorts(service.pid);
      if (ports !== null) expect(ports).toEqual([port]);
    });

    it('serves the API with a token made by the CLI, and does not process the queue itself', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/notifications`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(SEND),
      });
      expect(res.status).toBe(202);
      const id = ((await res.json()) as { data: { id: string } }).data.id;
      queuedId = id;
      // The fan-out job waits for a worker: an api process has no processors.
      const queue = new Queue(FANOUT_QUEUE, { connection: { url: TEST_REDIS_URL }, prefix: stores.queuePrefix });
      try {
        expect(await queue.getJobState(fanoutJobId(id))).toBe('waiting');
      } finally {
        await queue.close();
      }
    });

    it('on SIGTERM finishes the request in flight, then exits 0', async () => {
      const post = pendingPost(port, '/api/v1/notifications', token, SEND);
      await post.headersRead;
      service.child.kill('SIGTERM');
      // Shutdown has begun (the port no longer accepts connections) while the request waits for its body.
      await waitUntil(async () => (await probePort(port)) === 'ECONNREFUSED', 'the port to close after SIGTERM');
      expect(service.alive).toBe(true);
      post.release();
      const reply = await post.reply;
      expect(reply.status).toBe(202);
      expect(reply.body).toEqual(expect.objectContaining({ data: expect.objectContaining({ id: expect.any(String) }), meta: { accepted: true } }));
      const exit = await service.stop('SIGTERM');
      expect(exit).toEqual({ code: 0, signal: null });
    });

    it('after SIGTERM no new connection is accepted', async () => {
      expect(service.alive).toBe(false);
      expect(await probePort(port)).toBe('ECONNREFUSED');
    });
  });

  describe('APP_MODE=worker', () => {
    let port: number;
    let service: ServiceProcess;

    beforeAll(async () => {
      port = await freePort();
      service = ServiceProcess.start(modeEnv('worker', port));
      await service.waitForOutput(/started/i);
    });
    afterAll(async () => {
      if (service.alive) await service.stop('SIGKILL');
    });

    it('takes the fan-out queued by the api process (processing_started_at gets set)', async () => {
      expect(queuedId).toBeDefined();
      const client = new Client({ connectionString: stores.database.url });
      await client.connect();
      try {
        await waitUntil(async () => {
          const { rows } = await client.query(`SELECT processing_started_at FROM notifications WHERE id = $1`, [queuedId]);
          return rows[0]?.processing_started_at != null;
        }, 'the worker to start the fan-out');
      } finally {
        await client.end();
      }
    });

    it('opens no HTTP port: connecting to PORT is refused', async () => {
      expect(service.alive).toBe(true);
      expect(await probePort(port)).toBe('ECONNREFUSED');
    });

    it('listens on no TCP port at all', () => {
      const ports = listeningPorts(service.pid);
      if (ports !== null) expect(ports).toEqual([]);
    });

    it('keeps running until SIGTERM, then exits 0', async () => {
      expect(service.alive).toBe(true);
      expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    });
  });

  describe('APP_MODE=all', () => {
    let port: number;
    let service: ServiceProcess;

    beforeAll(async () => {
      port = await freePort();
      service = ServiceProcess.start(modeEnv('all', port));
      await service.waitForHttp(port);
    });
    afterAll(async () => {
      if (service.alive) await service.stop('SIGKILL');
    });

    it('serves HTTP: health and the API', async () => {
      expect((await getJson(port, '/health/live')).status).toBe(200);
      expect((await getJson(port, '/health/ready')).status).toBe(200);
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/notifications?limit=1`, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      const unauthenticated = await fetch(`http://127.0.0.1:${port}/api/v1/notifications`);
      expect(unauthenticated.status).toBe(401);
    });

    it('listens on PORT only', () => {
      const ports = listeningPorts(service.pid);
      if (ports !== null) expect(ports).toEqual([port]);
    });

    it('exits 0 on SIGTERM', async () => {
      expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    });
  });

  it('APP_MODE unset defaults to all (serves HTTP)', async () => {
    const port = await freePort();
    const service = ServiceProcess.start({ ...modeEnv('all', port), APP_MODE: undefined });
    await service.waitForHttp(port);
    expect((await getJson(port, '/health/live')).status).toBe(200);
    expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });
});
