import { TokenCache } from '../../src/auth/token-cache';
import { TokensService } from '../../src/auth/tokens.service';
import { Clock } from '../../src/common/time';
import { useTestApp } from '../support/create-test-app';
import { bearer, installationId, newApp, newInstallation, newToken, TestTenant } from '../support/factories';
import { TestClock } from '../support/test-clock';

const SEND = { recipients: { user_ids: ['u1'] }, notification: { title: 'Hi', body: 'There' } };

describe('authentication and abilities (docs/api.md#errors and docs/api.md#tokens)', () => {
  const clock = new TestClock();
  const ctx = useTestApp({ override: (builder) => builder.overrideProvider(Clock).useValue(clock) });
  let tenant: TestTenant;

  beforeAll(async () => {
    tenant = await newApp(ctx);
  });

  const patch = (headers: Record<string, string> = {}) => ctx.http().patch(`/api/v1/installations/${installationId()}`).set(headers).send({ user_id: 'u1' });
  const send = (headers: Record<string, string> = {}) => ctx.http().post('/api/v1/notifications').set(headers).send(SEND);

  describe.each([
    ['PATCH /installations/{id}', patch],
    ['POST /notifications', send],
  ])('%s', (_name, call) => {
    it('401 without an Authorization header', async () => {
      const res = await call();
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('401 with another scheme', async () => {
      const res = await call({ Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
    });

    it('401 with an unknown token', async () => {
      const res = await call(bearer('pns_doesnotexistdoesnotexistdoesnotexist1234'));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
    });

    it('401 with a revoked token', async () => {
      const tokens = ctx.get(TokensService);
      const created = await tokens.create({ appId: tenant.appId, abilities: ['*'] });
      await tokens.revoke(created.id);
      const res = await call(bearer(created.token));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
    });

    it('401 with an expired token', async () => {
      const created = await ctx.get(TokensService).create({ appId: tenant.appId, abilities: ['*'], expiresInDays: 1 });
      await ctx.db.query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [created.id]);
      const res = await call(bearer(created.token));
      expect(res.status).toBe(401);
    });

    it('403 when the token lacks the ability', async () => {
      const token = await newToken(ctx, tenant.appId, ['installations:read', 'notifications:read', 'events:write']);
      const res = await call(bearer(token));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'This action is unauthorized.' });
    });

    it('authentication is checked before the body (malformed JSON without a token is 401)', async () => {
      const res = await ctx.http().post('/api/v1/notifications').set('Content-Type', 'application/json').send('{"recipients":');
      expect(res.status).toBe(401);
    });
  });

  it('authorization is checked before validation (invalid body with a read-only token is 403)', async () => {
    const token = await newToken(ctx, tenant.appId, ['notifications:read']);
    const res = await ctx.http().post('/api/v1/notifications').set(bearer(token)).send({});
    expect(res.status).toBe(403);
  });

  it('each ability grants exactly its routes', async () => {
    const write = await newToken(ctx, tenant.appId, ['installations:write']);
    const read = await newToken(ctx, tenant.appId, ['installations:read']);
    const id = installationId();
    expect((await ctx.http().put(`/api/v1/installations/${id}`).set(bearer(write)).send({ platform: 'android', push_token: 'tok' })).status).toBe(201);
    expect((await ctx.http().get(`/api/v1/installations/${id}`).set(bearer(write))).status).toBe(403);
    expect((await ctx.http().get(`/api/v1/installations/${id}`).set(bearer(read))).status).toBe(200);
    expect((await ctx.http().delete(`/api/v1/installations/${id}`).set(bearer(read))).status).toBe(403);
    const send = await newToken(ctx, tenant.appId, ['notifications:send']);
    const notifRead = await newToken(ctx, tenant.appId, ['notifications:read']);
    const sent = await ctx.http().post('/api/v1/notifications').set(bearer(send)).send(SEND);
    expect(sent.status).toBe(202);
    expect((await ctx.http().get(`/api/v1/notifications/${sent.body.data.id}`).set(bearer(send))).status).toBe(403);
    expect((await ctx.http().get(`/api/v1/notifications/${sent.body.data.id}`).set(bearer(notifRead))).status).toBe(200);
  });

  it('records last_used_at at most once a minute', async () => {
    const created = await ctx.get(TokensService).create({ appId: tenant.appId, abilities: ['*'] });
    const lastUsed = async () => (await ctx.db.query(`SELECT last_used_at FROM api_tokens WHERE id = $1`, [created.id]))[0].last_used_at as Date | null;
    expect(await lastUsed()).toBeNull();
    await ctx.http().get('/api/v1/notifications').set(bearer(created.token)).expect(200);
    await waitFor(async () => (await lastUsed()) !== null);
    const first = await lastUsed();
    await ctx.http().get('/api/v1/notifications').set(bearer(created.token)).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await lastUsed()).toEqual(first);
    // Once the last use is over a minute old, the next request records it again. (The NOTIFY stands
    // for the minute passing in this process, which remembers its own last write in the kept token.)
    await ctx.db.query(`UPDATE api_tokens SET last_used_at = now() - interval '61 seconds' WHERE id = $1`, [created.id]);
    const epoch = ctx.get(TokenCache).epoch;
    await ctx.db.query(`NOTIFY api_tokens_changed`);
    await waitFor(async () => ctx.get(TokenCache).epoch > epoch);
    const old = await lastUsed();
    await ctx.http().get('/api/v1/notifications').set(bearer(created.token)).expect(200);
    await waitFor(async () => (await lastUsed())!.getTime() > old!.getTime());
  });

  describe('valid tokens kept in memory while token changes are listened to (docs/operations.md)', () => {
    const cache = () => ctx.get(TokenCache);
    const list = (token: string) => ctx.http().get('/api/v1/notifications').set(bearer(token));
    const listening = async () => {
      // The listener starts with the first lookup after it was lost.
      await list(tenant.token);
      return cache().listening;
    };
    const listenerPids = async (): Promise<number[]> =>
      (await ctx.db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'push-all-tokens'`)).map(
        (row: { pid: number }) => row.pid,
      );
    /** A change PostgreSQL does not announce: the trigger off while it is made. */
    const unannounced = async (statement: string, id: string) => {
      await ctx.db.query(`ALTER TABLE api_tokens DISABLE TRIGGER api_tokens_changed`);
      try {
        await ctx.db.query(statement, [id]);
      } finally {
        await ctx.db.query(`ALTER TABLE api_tokens ENABLE TRIGGER api_tokens_changed`);
      }
    };

    beforeEach(() => waitFor(listening));

    it('serves a known token from memory: a change PostgreSQL does not announce goes unseen, an announced one at once', async () => {
      const created = await ctx.get(TokensService).create({ appId: tenant.appId, abilities: ['*'] });
      await list(created.token).expect(200);
      await unannounced(`UPDATE api_tokens SET revoked_at = now() WHERE id = $1`, created.id);
      await list(created.token).expect(200);
      // Any announced change (here of another token) drops everything kept.
      const other = await ctx.get(TokensService).create({ appId: tenant.appId, abilities: ['*'] });
      await ctx.get(TokensService).revoke(other.id);
      await list(created.token).expect(401);
    });

    it('a token revoked through this process is refused by the very next request, announcement or not', async () => {
      const tokens = ctx.get(TokensService);
      const created = await tokens.create({ appId: tenant.appId, abilities: ['*'] });
      await list(created.token).expect(200);
      await ctx.db.query(`ALTER TABLE api_tokens DISABLE TRIGGER api_tokens_changed`);
      try {
        await tokens.revoke(created.id);
        await list(created.token).expect(401);
      } finally {
        await ctx.db.query(`ALTER TABLE api_tokens ENABLE TRIGGER api_tokens_changed`);
      }
    });

    it.each([
      ['revoked', `UPDATE api_tokens SET revoked_at = now() WHERE id = $1`],
      ['expired', `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`],
      ['narrowed to another ability', `UPDATE api_tokens SET abilities = '{installations:read}' WHERE id = $1`],
      ['deleted', `DELETE FROM api_tokens WHERE id = $1`],
    ])('a token %s in SQL by someone else stops working once PostgreSQL announces it', async (_change, statement) => {
      const created = await ctx.get(TokensService).create({ appId: tenant.appId, abilities: ['*'] });
      await list(created.token).expect(200);
      await list(created.token).expect(200);
      const epoch = cache().epoch;
      await ctx.db.query(statement, [created.id]);
      // The announcement comes on the listening connection, a moment after the commit (a request
      // sent in that moment may still pass: docs/operations.md, "Tokens in memory").
      await waitFor(async () => cache().epoch > epoch);
      expect([401, 403]).toContain((await list(created.token)).status);
    });

    it('a kept token still expires on time, without any announcement', async () => {
      const created = await ctx.get(TokensService).create({ appId: tenant.appId, abilities: ['*'] });
      await unannounced(`UPDATE api_tokens SET expires_at = now() + interval '1 second' WHERE id = $1`, created.id);
      await list(created.token).expect(200);
      clock.advance(1100);
      try {
        await list(created.token).expect(401);
      } finally {
        clock.reset();
      }
    });

    it('never keeps an unknown or revoked token: one created or restored later works at once', async () => {
      const created = await ctx.get(TokensService).create({ appId: tenant.appId, abilities: ['*'] });
      await unannounced(`UPDATE api_tokens SET revoked_at = now() WHERE id = $1`, created.id);
      await list(created.token).expect(401);
      await unannounced(`UPDATE api_tokens SET revoked_at = NULL WHERE id = $1`, created.id);
      await list(created.token).expect(200);
    });

    it('without its listener, every request reads the database; listening resumes by itself', async () => {
      const created = await ctx.get(TokensService).create({ appId: tenant.appId, abilities: ['*'] });
      await list(created.token).expect(200);
      const [pid] = await listenerPids();
      await ctx.db.query(`SELECT pg_terminate_backend($1)`, [pid]);
      await waitFor(async () => !cache().listening);

      await unannounced(`UPDATE api_tokens SET revoked_at = now() WHERE id = $1`, created.id);
      await list(created.token).expect(401);
      await waitFor(listening, 5000);
      expect(await listenerPids()).toHaveLength(1);
      expect(await listenerPids()).not.toContain(pid);
    });
  });

  it("a token only sees its own app: another app's installation is 404 and stays unchanged", async () => {
    const other = await newApp(ctx, 'Other');
    const theirs = await newInstallation(ctx, other.token, { user_id: 'theirs' });
    const path = `/api/v1/installations/${theirs.installation_id}`;
    for (const res of [
      await ctx.http().get(path).set(bearer(tenant.token)),
      await ctx.http().patch(path).set(bearer(tenant.token)).send({ user_id: 'mine' }),
      await ctx.http().delete(path).set(bearer(tenant.token)),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Not Found' });
    }
    const after = await ctx.http().get(path).set(bearer(other.token)).expect(200);
    expect(after.body.data).toEqual(theirs);
  });

  it("a token only sees its own app's notifications", async () => {
    const other = await newApp(ctx, 'Other 2');
    const sent = await ctx.http().post('/api/v1/notifications').set(bearer(other.token)).send(SEND).expect(202);
    const res = await ctx.http().get(`/api/v1/notifications/${sent.body.data.id}`).set(bearer(tenant.token));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Not Found' });
    const list = await ctx.http().get('/api/v1/notifications').set(bearer(tenant.token)).expect(200);
    expect(list.body.data.map((n: { id: string }) => n.id)).not.toContain(sent.body.data.id);
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
