import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { canonicalJson, requestHash } from '../../src/notifications/idempotency/idempotency.service';
import { IdempotencyRepository } from '../../src/notifications/idempotency/idempotency.repository';
import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, TestTenant } from '../support/factories';
import { configureCredentials } from '../support/providers';

const body = (title = 'Hello') => ({ recipients: { user_ids: ['u1'] }, notification: { title, body: 'World' } });
let counter = 0;
const freshKey = () => `key-${Date.now()}-${counter++}`;

describe('Idempotency-Key (docs/api.md#idempotency)', () => {
  const ctx = useTestApp();
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    // The payload size check applies to the platforms the app can reach (docs/api.md#send).
    await configureCredentials(ctx, tenant.appId);
  });

  const send = (key: string | undefined, payload: unknown, token = tenant.token) => {
    const req = ctx.http().post('/api/v1/notifications').set(bearer(token));
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(payload as object);
  };
  const count = async (appId = tenant.appId) => Number((await ctx.db.query(`SELECT count(*) FROM notifications WHERE app_id = $1`, [appId]))[0].count);

  it('replays the first response for the same key and body, marked Idempotent-Replayed', async () => {
    const key = freshKey();
    const before = await count();
    const first = await send(key, body());
    expect(first.status).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await send(key, body());
    expect(second.status).toBe(202);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await count()).toBe(before + 1);
  });

  it('a replay is byte-identical to the first answer: same status, content type and body text', async () => {
    const key = freshKey();
    // Keys in an order jsonb would not keep (it sorts them by length), nested, and non-ASCII text.
    const payload = {
      recipients: { user_ids: ['u1', 'u2'] },
      notification: { title: 'Grüße 👋', body: 'Ünïcödé body', action_url: 'myapp://orders/42' },
      data: { zeta_long_key: { b: 2, a: [3, 1] }, a: 'first', mid: null, émoji: '✓' },
      options: { ttl: 60, sound: 'default', priority: 'normal', badge: 0 },
    };
    const first = await send(key, payload);
    expect(first.status).toBe(202);
    const replays = [await send(key, payload), await send(key, payload)];
    for (const replay of replays) {
      expect(replay.status).toBe(first.status);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['content-type']).toBe(first.headers['content-type']);
      expect(replay.text).toBe(first.text);
    }
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    const [row] = await ctx.db.query(`SELECT response_body FROM idempotency_keys WHERE app_id = $1 AND key = $2`, [tenant.appId, key]);
    expect(row.response_body).toBe(first.text);
  });

  it('compares bodies as canonical JSON: key order does not matter', async () => {
    const key = freshKey();
    const first = await send(key, { recipients: { user_ids: ['u1'] }, notification: { title: 'T', body: 'B' } });
    const reordered = await send(key, { notification: { body: 'B', title: 'T' }, recipients: { user_ids: ['u1'] } });
    expect(reordered.status).toBe(202);
    expect(reordered.headers['idempotent-replayed']).toBe('true');
    expect(reordered.body.data.id).toBe(first.body.data.id);
  });

  it('409 when the key was used with a different body', async () => {
    const key = freshKey();
    await send(key, body('one')).expect(202);
    const res = await send(key, body('two'));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: 'This idempotency key was already used with a different request.' });
  });

  it('409 while the first request with the key is still in progress', async () => {
    const key = freshKey();
    const hash = createHash('sha256').update(canonicalJson(body())).digest('hex');
    await ctx.db.query(
      `INSERT INTO idempotency_keys (app_id, key, request_hash, status, locked_until, expires_at)
       VALUES ($1, $2, $3, 'in_progress', now() + interval '1 minute', now() + interval '1 day')`,
      [tenant.appId, key, hash],
    );
    const res = await send(key, body());
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: 'A request with this idempotency key is already in progress.' });
  });

  it('a claim left by a request that died is taken over by a retry once its lock expires', async () => {
    const key = freshKey();
    await ctx.db.query(
      `INSERT INTO idempotency_keys (app_id, key, request_hash, status, locked_until, expires_at)
       VALUES ($1, $2, $3, 'in_progress', now() - interval '1 second', now() + interval '1 day')`,
      [tenant.appId, key, requestHash(body())],
    );
    const res = await send(key, body());
    expect(res.status).toBe(202);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('20 simultaneous identical requests create exactly one notification', async () => {
    const key = freshKey();
    const before = await count();
    const results = await Promise.all(Array.from({ length: 20 }, () => send(key, body('concurrent'))));
    for (const res of results) {
      expect([202, 409]).toContain(res.status);
      if (res.status === 409) expect(res.body).toEqual({ message: 'A request with this idempotency key is already in progress.' });
    }
    const accepted = results.filter((r) => r.status === 202);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(accepted.map((r) => r.body.data.id)).size).toBe(1);
    expect(accepted.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    expect(await count()).toBe(before + 1);
    // Afterwards every retry is a replay.
    const later = await send(key, body('concurrent'));
    expect(later.headers['idempotent-replayed']).toBe('true');
  });

  it('a validation failure is not remembered: a corrected retry with the same key proceeds', async () => {
    const key = freshKey();
    const bad = await send(key, { recipients: { user_ids: [] }, notification: { title: 'T', body: 'B' } });
    expect(bad.status).toBe(422);
    const good = await send(key, body());
    expect(good.status).toBe(202);
    expect(good.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a too-large payload (422 at send time) is not remembered either', async () => {
    const key = freshKey();
    const huge = { recipients: { user_ids: ['u'] }, notification: { title: 'T', body: 'b'.repeat(4000) }, data: { x: 'y'.repeat(3000) } };
    expect((await send(key, huge)).status).toBe(422);
    expect((await send(key, body())).status).toBe(202);
  });

  it('claims a key without waiting for the WAL flush (decision 0012)', async () => {
    const runner = ctx.db.createQueryRunner();
    await runner.startTransaction();
    try {
      // The repository's statement, run in this transaction, so that its setting can be read after it.
      const repository = new IdempotencyRepository({ query: (sql: string, params?: unknown[]) => runner.query(sql, params) } as unknown as DataSource);
      const setting = async () => ((await runner.query(`SHOW synchronous_commit`)) as { synchronous_commit: string }[])[0].synchronous_commit;
      expect(await setting()).toBe('on');
      expect(await repository.claim(tenant.appId, freshKey(), 'a'.repeat(64), 60, 24)).toBe(true);
      expect(await setting()).toBe('off');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it("answers the key's answer without waiting for the WAL flush (decision 0014)", async () => {
    const key = freshKey();
    await send(key, body());
    await ctx.db.query(`UPDATE idempotency_keys SET status = 'in_progress' WHERE key = $1`, [key]);
    const runner = ctx.db.createQueryRunner();
    await runner.startTransaction();
    try {
      // The repository's prepared statement, run in this transaction, so that its setting can be read after it.
      const master = {
        options: {},
        query: async (config: { text: string; values: unknown[] }) => ({ rows: [], rowCount: (await runner.query(config.text, config.values))[1] }),
      };
      const repository = new IdempotencyRepository({ driver: { master } } as unknown as DataSource);
      const setting = async () => ((await runner.query(`SHOW synchronous_commit`)) as { synchronous_commit: string }[])[0].synchronous_commit;
      expect(await setting()).toBe('on');
      expect(await repository.complete(tenant.appId, key, 202, '{}')).toBe(true);
      expect(await setting()).toBe('off');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  describe('a request that stored its send and died before its answer (decision 0014)', () => {
    const small = { recipients: { user_ids: ['u1'] }, notification: { title: 'Your code', body: '123456' } };
    const large = { recipients: { user_ids: ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'] }, notification: { title: 'Sale', body: 'Today' } };
    /** A send whose key is left as its request left it: tied to the send, no answer, its lock `lock` from now. */
    const diedAfterStoring = async (payload: object, lock: string) => {
      const key = freshKey();
      const first = await send(key, payload);
      expect(first.status).toBe(202);
      const [row] = await ctx.db.query(`SELECT notification_id FROM idempotency_keys WHERE app_id = $1 AND key = $2`, [tenant.appId, key]);
      // The statement that stored the send tied the key to it.
      expect(row.notification_id).toBe(first.body.data.id);
      await ctx.db.query(
        `UPDATE idempotency_keys SET status = 'in_progress', response_status = NULL, response_body = NULL, locked_until = now() + $3::interval
         WHERE app_id = $1 AND key = $2`,
        [tenant.appId, key, lock],
      );
      return { key, id: first.body.data.id as string };
    };

    it.each([
      ['a small send', small],
      ['a send through the fan-out job', large],
    ])('%s: a retry once the lock has run out is answered with that send, which later replays repeat', async (_, payload) => {
      const { key, id } = await diedAfterStoring(payload, '-1 second');
      const before = await count();
      const retry = await send(key, payload);
      expect(retry.status).toBe(202);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body.data.id).toBe(id);
      const later = await send(key, payload);
      expect(later.headers['idempotent-replayed']).toBe('true');
      expect(later.text).toBe(retry.text);
      expect(await count()).toBe(before);
    });

    it('409 while its lock runs; a failed request releases only a key tied to nothing', async () => {
      const { key } = await diedAfterStoring(small, '1 minute');
      const retry = await send(key, small);
      expect(retry.status).toBe(409);
      expect(retry.body).toEqual({ message: 'A request with this idempotency key is already in progress.' });
      await new IdempotencyRepository(ctx.db).release(tenant.appId, key);
      expect(await ctx.db.query(`SELECT 1 FROM idempotency_keys WHERE app_id = $1 AND key = $2`, [tenant.appId, key])).toHaveLength(1);
    });
  });

  it('keys are scoped to the app', async () => {
    const other = await newApp(ctx, 'Other');
    const key = freshKey();
    const mine = await send(key, body());
    const theirs = await send(key, body('different body'), other.token);
    expect(theirs.status).toBe(202);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('an expired key (over 24 hours) is used afresh', async () => {
    const key = freshKey();
    const first = await send(key, body());
    await ctx.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [key]);
    const again = await send(key, body('new content'));
    expect(again.status).toBe(202);
    expect(again.body.data.id).not.toBe(first.body.data.id);
  });

  it('keeps keys for 24 hours', async () => {
    const key = freshKey();
    await send(key, body()).expect(202);
    const [row] = await ctx.db.query(
      `SELECT extract(epoch FROM expires_at - created_at) AS seconds, status, response_status FROM idempotency_keys WHERE key = $1`,
      [key],
    );
    expect(Number(row.seconds)).toBeCloseTo(86_400, 0);
    expect(row).toMatchObject({ status: 'completed', response_status: 202 });
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['non-ASCII', 'clé-ü'],
    ['a control character', 'a\tb'],
  ])('422 with errors.idempotency_key for a key that is %s', async (_name, key) => {
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .set('Idempotency-Key', Buffer.from(key, 'utf8').toString('latin1'))
      .send(body());
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ idempotency_key: ['The Idempotency-Key header must be 1 to 255 printable ASCII characters.'] });
  });

  it('accepts a 255-character printable key', async () => {
    const key = `${'k'.repeat(250)}${String(counter++).padStart(5, '0')}`;
    expect((await send(key, body())).status).toBe(202);
  });
});
