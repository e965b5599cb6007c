import { createHmac, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { open } from '../../src/credentials/secret-box';
import { freePort, runCli, RunResult, serviceEnv, ServiceProcess, TEST_APP_KEY } from '../support/processes';
import { deleteRedisPrefix } from '../support/services';
import { useBuiltServices } from '../support/use-built-services';
import { waitFor } from '../support/wait-for';
import { ReceivedCall, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(120_000);

function signatureOk(call: ReceivedCall, secret: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${call.headers['webhook-id']}.${call.headers['webhook-timestamp']}.${call.body}`).digest('base64');
  return call.headers['webhook-signature'] === `v1,${expected}`;
}

/**
 * Webhooks (docs/api.md#webhooks) with the built service as separate api and worker processes: the
 * outbox survives a worker killed between the completion and the call, and Redis losing the
 * queue; the operator commands that touch webhooks (app-key:rotate, apps:delete).
 */
/** The receiver is on loopback, which webhooks may call only when listed. */
const RECEIVER_HOST = '127.0.0.1';

describe('webhooks across crashes and operator commands (docs/api.md#webhooks)', () => {
  const receiver = new WebhookReceiver();
  let sql: Client;
  beforeAll(() => receiver.start());
  afterAll(async () => {
    await sql?.end();
    await receiver.stop();
  });
  const stores = useBuiltServices();
  beforeAll(async () => {
    sql = new Client({ connectionString: stores.database.url });
    await sql.connect();
  });

  const cli = (args: string[], keys: Record<string, string> = { APP_KEY: TEST_APP_KEY }) =>
    runCli(args, { env: { DATABASE_URL: stores.database.url, NODE_ENV: 'test', WEBHOOK_ALLOWED_HOSTS: RECEIVER_HOST, ...keys } });
  const json = (result: RunResult): any => {
    if (result.code !== 0) throw new Error(`command failed (${result.code}):\n${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const start = (extra: Record<string, string>) =>
    ServiceProcess.start(
      serviceEnv(
        { databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix },
        { QUEUE_LOCK_MS: '2000', WEBHOOK_ALLOWED_HOSTS: RECEIVER_HOST, ...extra },
      ),
    );
  const newTenant = async (name: string, keys?: Record<string, string>) => {
    const app = json(await cli(['apps:create', '--name', name], keys));
    const token = json(await cli(['tokens:create', '--app', app.id, '--abilities', '*'], keys)).token as string;
    return { id: app.id as string, token };
  };
  const send = async (port: number, token: string, user: string) => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/notifications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ recipients: { user_ids: [user] }, notification: { title: 'T', body: 'B' } }),
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  const deliveredCall = (path: string, notificationId: string, timeoutMs = 40_000) =>
    waitFor(
      async () => receiver.to(path).find((call) => call.answer === 200 && JSON.parse(call.body).data.id === notificationId),
      `a 200-answered call to ${path} about ${notificationId}`,
      timeoutMs,
    );

  it('a worker SIGKILLed right after the completion, with Redis flushed too, still makes the call once restarted', async () => {
    const tenant = await newTenant('Crash');
    const hook = json(await cli(['webhooks:create', '--app', tenant.id, '--url', receiver.url('/crash'), '--events', 'notification.completed']));
    const port = await freePort();
    const api = start({ APP_MODE: 'api', PORT: String(port) });
    await api.waitForHttp(port);
    const worker = start({ APP_MODE: 'worker' });
    await worker.waitForOutput(/Started in worker mode/);
    // Should the call start before the kill, it gets no answer: nothing is delivered before the crash.
    receiver.script('/crash', [{ hangMs: 60_000 }]);

    const id = await send(port, tenant.token, 'nobody');
    // The outbox row appears with the completion (same statement); the worker dies at once.
    const message = await waitFor(
      async () => (await sql.query(`SELECT id, status FROM webhook_messages WHERE subject_id = $1`, [id])).rows[0],
      'the completion and its outbox row',
      20_000,
      5,
    );
    worker.child.kill('SIGKILL');
    await worker.exited;
    const callsAtKill = receiver.to('/crash').length;
    expect(message.status).toBe('pending');
    expect((await sql.query(`SELECT completed_at FROM notifications WHERE id = $1`, [id])).rows[0].completed_at).not.toBeNull();
    // Redis loses every job too (a flush, a failover without persistence): only PostgreSQL remembers.
    await deleteRedisPrefix(stores.queuePrefix);

    const restarted = start({ APP_MODE: 'worker' });
    const call = await deliveredCall('/crash', id);
    expect(call.headers['webhook-id']).toBe(message.id);
    expect(signatureOk(call, hook.secret)).toBe(true);
    expect(JSON.parse(call.body)).toMatchObject({ type: 'notification.completed', data: { id, completed_at: expect.any(String) } });
    await waitFor(async () => (await sql.query(`SELECT status FROM webhook_messages WHERE id = $1`, [message.id])).rows[0].status === 'delivered', 'delivered');
    // Every call carried the same webhook-id (a call cut off by the crash may have come first: at least once).
    expect(new Set(receiver.to('/crash').map((c) => c.headers['webhook-id']))).toEqual(new Set([message.id]));
    // Said for the record, so a reader can see which case this run hit.
    process.stderr.write(`webhooks-crash: ${callsAtKill} call(s) had reached the receiver when the worker was killed\n`);
    await restarted.stop();
    await api.stop();
  });

  it('app-key:rotate re-seals webhook secrets; a worker with the new key alone signs with the same secret', async () => {
    const KEY_B = randomBytes(32).toString('base64');
    const tenant = await newTenant('Rotate');
    const hook = json(await cli(['webhooks:create', '--app', tenant.id, '--url', receiver.url('/rotated'), '--events', 'notification.completed']));
    const secrets = Number((await sql.query(`SELECT count(*) AS n FROM webhooks`)).rows[0].n);

    const rotated = json(await cli(['app-key:rotate'], { APP_KEY: KEY_B, APP_KEY_PREVIOUS: TEST_APP_KEY }));
    expect(rotated).toEqual({ apps: 0, secrets, resealed: secrets, already_current: 0 });
    expect(json(await cli(['app-key:rotate'], { APP_KEY: KEY_B, APP_KEY_PREVIOUS: TEST_APP_KEY }))).toEqual({
      apps: 0,
      secrets,
      resealed: 0,
      already_current: secrets,
    });
    const [row] = (await sql.query(`SELECT secret_enc FROM webhooks WHERE id = $1`, [hook.id])).rows;
    expect(open(row.secret_enc, `webhooks:${hook.id}:secret_enc`, KEY_B)).toBe(hook.secret);
    expect(() => open(row.secret_enc, `webhooks:${hook.id}:secret_enc`, TEST_APP_KEY)).toThrow(/APP_KEY is not the key/);
    const stale = await cli(['app-key:rotate'], { APP_KEY: TEST_APP_KEY });
    expect(stale).toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/^The secret of webhook [0-9a-f-]{36} opens under neither APP_KEY nor APP_KEY_PREVIOUS; nothing was changed\n$/),
    });

    const port = await freePort();
    const service = start({ APP_MODE: 'all', PORT: String(port), APP_KEY: KEY_B });
    await service.waitForHttp(port);
    const id = await send(port, tenant.token, 'nobody');
    const call = await deliveredCall('/rotated', id);
    expect(signatureOk(call, hook.secret)).toBe(true);
    await service.stop();
    // Back under the key the other tests use.
    json(await cli(['app-key:rotate'], { APP_KEY: TEST_APP_KEY, APP_KEY_PREVIOUS: KEY_B }));
  });

  it("apps:delete removes the app's webhooks and their messages", async () => {
    const tenant = await newTenant('Doomed');
    const hook = json(await cli(['webhooks:create', '--app', tenant.id, '--url', receiver.url('/doomed'), '--events', 'notification.completed']));
    await sql.query(`INSERT INTO webhook_messages (webhook_id, type, subject_id) VALUES ($1, 'notification.completed', gen_random_uuid())`, [hook.id]);
    json(await cli(['apps:delete', '--id', tenant.id]));
    const left = (
      await sql.query(
        `SELECT (SELECT count(*) FROM webhooks WHERE app_id = $1)::int AS webhooks,
                (SELECT count(*) FROM webhook_messages WHERE webhook_id = $2)::int AS messages`,
        [tenant.id, hook.id],
      )
    ).rows[0];
    expect(left).toEqual({ webhooks: 0, messages: 0 });
  });
});
