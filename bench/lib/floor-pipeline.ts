/**
 * The floor of a single-device send on this machine (bench/tools/latency-floor.ts, bench/HISTORY.md "The
 * floor of a single-device send"): the fewest hops any service with a durable 202 and a separate
 * worker makes, with nothing of ours in them. Two processes, run with ts-node:
 *
 *   api     node:http; a POST /send stores the send in one autocommitted INSERT (its commit waits
 *           for the WAL flush, as the 202 of ours is durable), pushes its id to a Redis list, answers 202;
 *   worker  BRPOP on that list; claims the row (one UPDATE whose commit does not wait for the flush,
 *           as ours: docs/decisions/0012-claims-commit-without-waiting-for-wal.md), then sends it to
 *           the fake APNs over one HTTP/2 connection with a signed provider token.
 *
 * POST /send?flush=0 stores without waiting for the flush: what the WAL flush alone costs.
 * No Nest, TypeORM, BullMQ, validation, authentication, idempotency or request log.
 *
 * Environment: FLOOR_MODE (api | worker), DATABASE_URL, REDIS_URL, FLOOR_QUEUE (the list's key),
 * PORT (api), APNS_URL, APNS_CA (the fake's CA certificate file), APNS_KEY (JSON: keyId, teamId, privateKeyPem),
 * APNS_TOPIC (worker).
 */
import { createPrivateKey, sign } from 'node:crypto';
import { createServer } from 'node:http';
import { connect } from 'node:http2';
import { readFileSync } from 'node:fs';
import Redis from 'ioredis';
import { Pool } from 'pg';

/** The table the floor stores sends in (created by bench/lib/floor.ts in the bench's database). */
export const FLOOR_TABLE_SQL = `CREATE TABLE floor_sends (
  id bigserial PRIMARY KEY, token text NOT NULL, title text NOT NULL, body text NOT NULL,
  status text NOT NULL DEFAULT 'queued', created_at timestamptz NOT NULL DEFAULT now())`;

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

function api(): void {
  const durable = new Pool({ connectionString: env('DATABASE_URL'), max: 4 });
  const unflushed = new Pool({ connectionString: env('DATABASE_URL'), max: 4, options: '-c synchronous_commit=off' });
  const redis = new Redis(env('REDIS_URL'));
  const queue = env('FLOOR_QUEUE');
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        try {
          const send = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { token: string; title: string; body: string };
          const pool = req.url?.includes('flush=0') ? unflushed : durable;
          const { rows } = await pool.query<{ id: string }>('INSERT INTO floor_sends (token, title, body) VALUES ($1, $2, $3) RETURNING id', [
            send.token,
            send.title,
            send.body,
          ]);
          await redis.lpush(queue, rows[0].id);
          res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ id: rows[0].id }));
        } catch (error) {
          res.writeHead(500).end(String(error));
        }
      })();
    });
  });
  server.listen(Number(env('PORT')), '127.0.0.1', () => process.stdout.write('floor api listening\n'));
}

/** An APNs provider token (ES256 JWT), as the real client signs one. */
function providerToken(key: { keyId: string; teamId: string; privateKeyPem: string }): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${part({ alg: 'ES256', kid: key.keyId })}.${part({ iss: key.teamId, iat: Math.floor(Date.now() / 1000) })}`;
  const signature = sign('sha256', Buffer.from(signed), { key: createPrivateKey(key.privateKeyPem), dsaEncoding: 'ieee-p1363' });
  return `${signed}.${signature.toString('base64url')}`;
}

function worker(): void {
  const db = new Pool({ connectionString: env('DATABASE_URL'), max: 2, options: '-c synchronous_commit=off' });
  const redis = new Redis(env('REDIS_URL'));
  const queue = env('FLOOR_QUEUE');
  const session = connect(env('APNS_URL'), { ca: readFileSync(env('APNS_CA')) });
  const authorization = `bearer ${providerToken(JSON.parse(env('APNS_KEY')) as { keyId: string; teamId: string; privateKeyPem: string })}`;
  const topic = env('APNS_TOPIC');
  const deliver = async (id: string) => {
    const { rows } = await db.query<{ token: string; title: string; body: string }>(
      `UPDATE floor_sends SET status = 'sending' WHERE id = $1 AND status = 'queued' RETURNING token, title, body`,
      [id],
    );
    const [send] = rows;
    if (!send) return;
    const status = await new Promise<number>((resolve, reject) => {
      const stream = session.request({
        ':method': 'POST',
        ':path': `/3/device/${send.token}`,
        authorization,
        'apns-topic': topic,
        'apns-push-type': 'alert',
      });
      let code = 0;
      stream.on('response', (headers) => (code = Number(headers[':status'])));
      stream.on('error', reject);
      stream.on('end', () => resolve(code));
      stream.resume();
      stream.end(JSON.stringify({ aps: { alert: { title: send.title, body: send.body } } }));
    });
    await db.query('UPDATE floor_sends SET status = $2 WHERE id = $1', [id, status === 200 ? 'accepted' : 'failed']);
  };
  void (async () => {
    process.stdout.write('floor worker waiting\n');
    for (;;) {
      const popped = await redis.brpop(queue, 0);
      if (popped) await deliver(popped[1]);
    }
  })();
}

if (require.main === module) {
  if (process.env.FLOOR_MODE === 'api') api();
  else if (process.env.FLOOR_MODE === 'worker') worker();
  else throw new Error('FLOOR_MODE must be api or worker');
}
