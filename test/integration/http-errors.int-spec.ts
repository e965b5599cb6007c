import { useTestApp } from '../support/create-test-app';
import { bearer, newApp, newInstallation, TestTenant } from '../support/factories';

const SEND = { recipients: { user_ids: ['u1'] }, notification: { title: 'Hi', body: 'There' } };

describe('HTTP error bodies (docs/api.md#errors)', () => {
  const ctx = useTestApp();
  let tenant: TestTenant;
  let installation: string;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    installation = (await newInstallation(ctx, tenant.token)).installation_id;
  });

  const routes = () => [
    { name: 'PATCH installation', req: () => ctx.http().patch(`/api/v1/installations/${installation}`) },
    { name: 'POST notification', req: () => ctx.http().post('/api/v1/notifications') },
  ];

  it.each([0, 1])('400 for malformed JSON (%#)', async (i) => {
    const res = await routes()[i].req().set(bearer(tenant.token)).set('Content-Type', 'application/json').send('{"user_id": "u1",');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Malformed JSON body.' });
  });

  it.each([0, 1])('413 for a body over 1 MiB (%#)', async (i) => {
    const route = routes()[i];
    const res = await route
      .req()
      .set(bearer(tenant.token))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ user_id: 'x'.repeat(1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: 'Payload Too Large.' });
  });

  it.each([0, 1])('415 for a body that is not JSON (%#)', async (i) => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await routes()[i].req().set(bearer(tenant.token)).set('Content-Type', type).send('user_id=u1');
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ message: 'Unsupported Media Type.' });
    }
  });

  it('415 for a body with no Content-Type at all', async () => {
    const res = await ctx
      .http()
      .patch(`/api/v1/installations/${installation}`)
      .set(bearer(tenant.token))
      .set('Content-Type', '')
      .send(Buffer.from('{"user_id":"u1"}'));
    expect(res.status).toBe(415);
  });

  it('accepts application/*+json and a charset parameter', async () => {
    const res = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .set('Content-Type', 'application/vnd.api+json; charset=utf-8')
      .send(JSON.stringify(SEND));
    expect(res.status).toBe(202);
  });

  it('415 for a charset other than UTF-8 (RFC 8259: JSON is UTF-8)', async () => {
    for (const charset of ['latin1', '"UTF-16LE"']) {
      const res = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .set('Content-Type', `application/json; charset=${charset}`)
        .send(JSON.stringify(SEND));
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ message: 'Unsupported Media Type.' });
    }
  });

  it('reads a UTF-8 body that starts with a byte order mark', async () => {
    const res = await ctx
      .http()
      .patch(`/api/v1/installations/${installation}`)
      .set(bearer(tenant.token))
      .set('Content-Type', 'application/json')
      .send('\ufeff{"user_id":"bom"}');
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe('bom');
  });

  // docs/api.md#limits: a list over its maximum is refused on its length, before its items are walked.
  it('refuses 200,000 tags or 150,000 user ids with the bound alone, as a 422 at the list', async () => {
    const tags = await ctx
      .http()
      .patch(`/api/v1/installations/${installation}`)
      .set(bearer(tenant.token))
      .send({ tags: Array.from({ length: 200_000 }, (_, i) => `t${i % 10}`) });
    expect(tags.status).toBe(422);
    expect(tags.body.errors).toEqual({ tags: ['The tags field must not have more than 100 items.'] });
    const users = await ctx
      .http()
      .post('/api/v1/notifications')
      .set(bearer(tenant.token))
      .send({ ...SEND, recipients: { user_ids: Array.from({ length: 150_000 }, (_, i) => `u${i % 10}`) } });
    expect(users.status).toBe(422);
    expect(users.body.errors).toEqual({ 'recipients.user_ids': ['The recipients.user_ids field must not have more than 10000 items.'] });
  });

  it('422 (not 400) for valid JSON that is not an object', async () => {
    for (const body of ['[1,2]', '"text"', 'null', '42']) {
      const res = await ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).set('Content-Type', 'application/json').send(body);
      expect([400, 422]).toContain(res.status);
      if (res.status === 422) expect(res.body.errors).toEqual({ body: ['The request body must be a JSON object.'] });
      else expect(res.body).toEqual({ message: 'Malformed JSON body.' });
    }
  });

  it('a bodiless PATCH is validated as an empty object (422)', async () => {
    const res = await ctx.http().patch(`/api/v1/installations/${installation}`).set(bearer(tenant.token));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['body']);
  });

  it('404 JSON for unknown routes and methods, with or without a token', async () => {
    for (const res of [
      await ctx.http().get('/nope'),
      await ctx.http().get('/api/v1/nope').set(bearer(tenant.token)),
      await ctx.http().post('/api/v2/notifications').set(bearer(tenant.token)).send(SEND),
      await ctx.http().delete('/api/v1/notifications').set(bearer(tenant.token)),
    ]) {
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({ message: 'Not Found' });
    }
  });

  it('responses are JSON and carry no framework fingerprint', async () => {
    const res = await ctx.http().get('/api/v1/notifications').set(bearer(tenant.token));
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('500 "Server Error." without a stack trace or driver text when something breaks', async () => {
    await ctx.db.query(`ALTER TABLE notifications RENAME TO notifications_broken`);
    try {
      const res = await ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).send(SEND);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ message: 'Server Error.' });
      expect(res.text).not.toMatch(/relation|notifications_broken|QueryFailedError|at .*\.ts|stack/i);
      expect(res.headers['x-error-id']).toMatch(/^[0-9a-f-]{36}$/);
      const read = await ctx.http().get('/api/v1/notifications').set(bearer(tenant.token));
      expect(read.status).toBe(500);
      expect(read.body).toEqual({ message: 'Server Error.' });
    } finally {
      await ctx.db.query(`ALTER TABLE notifications_broken RENAME TO notifications`);
    }
  });

  it('an undecodable path is a 4xx JSON answer, not a crash', async () => {
    const res = await ctx.http().get('/api/v1/installations/%E0%A4%A').set(bearer(tenant.token));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(typeof res.body.message).toBe('string');
  });
});
