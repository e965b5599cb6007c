import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { MAX_REPORTED_ERRORS } from '../../src/common/errors';
import { answerClientErrors } from '../../src/common/http/client-errors';
import { canonicalJson } from '../../src/notifications/idempotency/idempotency.service';
import { MAX_KEYS_PER_OBJECT, MAX_KEYS_TOTAL } from '../../src/common/validation/validation-errors';
import { useTestApp } from '../support/create-test-app';
import { bearer, installationId, newApp, TestTenant } from '../support/factories';
import { freePort, lines, serviceEnv, ServiceProcess } from '../support/processes';
import { useBuiltServices } from '../support/use-built-services';

const SEND = { recipients: { user_ids: ['u1'] }, notification: { title: 'Hi', body: 'There' } };

const keys = (n: number, prefix = 'k') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 1]));

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `head` (and then `rest`, if given, without waiting) on a plain TCP connection and resolves
 * with the first complete response: what supertest cannot send (control characters, duplicate or
 * oversized headers, a body the server is not meant to wait for).
 */
function rawRequest(port: number, head: string | Buffer, rest?: Buffer): Promise<RawResponse> {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    const tryParse = () => {
      const end = data.indexOf('\r\n\r\n');
      if (end === -1) return false;
      const [statusLine, ...headerLines] = data.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      const length = Number(headers['content-length'] ?? NaN);
      const body = data.subarray(end + 4);
      if (Number.isNaN(length) || body.length < length) return false;
      done({ status: Number(statusLine.split(' ')[1]), headers, body: body.subarray(0, length).toString('utf8') });
      socket.destroy();
      return true;
    };
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      tryParse();
    });
    socket.on('end', () => tryParse() || fail(new Error(`incomplete response: ${data.toString('latin1').slice(0, 300)}`)));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : fail(error)));
    socket.write(head);
    if (rest) socket.write(rest);
  });
}

describe('request limits and refusals (issue 11)', () => {
  const ctx = useTestApp();
  let tenant: TestTenant;
  let port: number;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    const server: Server = ctx.app.getHttpServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as { port: number }).port;
  });

  describe('keys per object and in total (item 1)', () => {
    it('refuses a body of 60,000 keys before transforming it, with a small 422 at the field that holds them', async () => {
      const res = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .send({ ...SEND, data: keys(60_000) });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: `The data field must not have more than ${MAX_KEYS_PER_OBJECT} keys.`,
        errors: { data: [`The data field must not have more than ${MAX_KEYS_PER_OBJECT} keys.`] },
      });
    });

    it('refuses an object of one key more than the bound at its dotted path, and the body itself at `body`', async () => {
      const device = await ctx
        .http()
        .put(`/api/v1/installations/${installationId()}`)
        .set(bearer(tenant.token))
        .send({ platform: 'ios', push_token: 'ab'.repeat(32), device: keys(MAX_KEYS_PER_OBJECT + 1) });
      expect(device.status).toBe(422);
      expect(device.body.errors).toEqual({ device: [`The device field must not have more than ${MAX_KEYS_PER_OBJECT} keys.`] });

      const top = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .send({ ...SEND, ...keys(MAX_KEYS_PER_OBJECT + 1) });
      expect(top.status).toBe(422);
      expect(Object.keys(top.body.errors)).toEqual(['body']);
    });

    it(`refuses more than ${MAX_KEYS_TOTAL} keys in all, however they are spread`, async () => {
      // Eleven objects of 1,000 keys: each within the per-object bound, 11,000 in all.
      const spread = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`o${i}`, keys(MAX_KEYS_PER_OBJECT)]));
      const res = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .send({ ...SEND, data: spread });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ body: [`The request body must not have more than ${MAX_KEYS_TOTAL} keys in all (objects at any depth).`] });
    });

    it(`lists at most ${MAX_REPORTED_ERRORS} errors and counts the others in the message`, async () => {
      const res = await ctx
        .http()
        .put(`/api/v1/installations/${installationId()}`)
        .set(bearer(tenant.token))
        .send({ platform: 'ios', push_token: 'ab'.repeat(32), ...keys(900, 'unknown_') });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toHaveLength(MAX_REPORTED_ERRORS);
      expect(res.body.errors.unknown_0).toEqual(['The unknown_0 field is not allowed.']);
      expect(res.body.message).toBe('The unknown_0 field is not allowed. (and 899 more errors)');
      expect(res.text.length).toBeLessThan(5_000);
    });

    it('accepts 10,000 recipients: array items are not keys', async () => {
      const user_ids = Array.from({ length: 10_000 }, (_, i) => `user-${i}`);
      const res = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .send({ ...SEND, recipients: { user_ids } });
      expect(res.status).toBe(202);
    });
  });

  describe('the token only in the Authorization header (item 2)', () => {
    it('401 for access_token in the query string or the body', async () => {
      const sent = await ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).send(SEND).expect(202);
      const id = sent.body.data.id;
      const query = await ctx.http().get(`/api/v1/notifications/${id}?access_token=${tenant.token}`);
      expect(query.status).toBe(401);
      expect(query.body).toEqual({ message: 'Unauthenticated.' });
      const body = await ctx
        .http()
        .post('/api/v1/notifications')
        .send({ ...SEND, access_token: tenant.token });
      expect(body.status).toBe(401);
      // The header still works, and a stray query parameter does not matter then.
      await ctx.http().get(`/api/v1/notifications/${id}?access_token=x`).set(bearer(tenant.token)).expect(200);
    });
  });

  describe('anonymous bodies are not read (item 5)', () => {
    it('answers 401 to a 1 MiB body without a token before the client has sent it', async () => {
      const head = `POST /api/v1/notifications HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` + `Content-Length: ${1024 * 1024 - 1}\r\n\r\n`;
      // Only the first bytes of the body: a server that reads the body before authenticating waits for the rest forever.
      const res = await rawRequest(port, head, Buffer.from('['.repeat(1000)));
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body)).toEqual({ message: 'Unauthenticated.' });
    }, 15_000);

    it('401, not 400 or 413, for an anonymous 1 MiB deeply nested or malformed body; 404 for an unknown route', async () => {
      const nested = '['.repeat(512 * 1024) + ']'.repeat(512 * 1024 - 1);
      for (const body of [nested, '{"recipients":', '{"a":' + '1'.repeat(2 * 1024 * 1024) + '}']) {
        const res = await ctx.http().post('/api/v1/notifications').set('Content-Type', 'application/json').send(body);
        expect(res.status).toBe(401);
      }
      const unknown = await ctx.http().post('/api/v1/nope').set('Content-Type', 'application/json').send(nested);
      expect(unknown.status).toBe(404);
      const invalid = await ctx.http().post('/api/v1/notifications').set(bearer('pns_unknown')).set('Content-Type', 'application/json').send(nested);
      expect(invalid.status).toBe(401);
    });
  });

  describe('keys named like Object.prototype members inside data (item 6)', () => {
    it('stores and returns them exactly as sent, without touching any prototype', async () => {
      const data = '{"constructor":"x","toString":"y","__proto__":"z","hasOwnProperty":1,"valueOf":{"__proto__":{"polluted":1}},"a":1}';
      const sent = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .set('Content-Type', 'application/json')
        .send(`{"recipients":{"user_ids":["u1"]},"notification":{"title":"Hi","body":"There"},"data":${data}}`);
      expect(sent.status).toBe(202);
      const read = await ctx.http().get(`/api/v1/notifications/${sent.body.data.id}`).set(bearer(tenant.token)).expect(200);
      // PostgreSQL's jsonb orders keys its own way: compare with sorted keys.
      expect(canonicalJson(read.body.data.data)).toBe(canonicalJson(JSON.parse(data)));
      expect(canonicalJson(sent.body.data.data)).toBe(canonicalJson(JSON.parse(data)));
      expect(Object.keys(read.body.data.data)).toHaveLength(6);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
    });
  });

  describe('date-times (item 7)', () => {
    const event = (occurred_at: unknown) =>
      ctx.http().post(`/api/v1/notifications/${randomUUID()}/events`).set(bearer(tenant.token)).send({ installation_id: 'i1', type: 'opened', occurred_at });

    it.each([
      '2026-02-30T10:00:00Z',
      '2025-02-29T10:00:00Z',
      '0000-01-01T00:00:00Z',
      '1999-12-31T23:59:59Z',
      '2101-01-01T00:00:00Z',
      '9999-12-31T23:59:59-23:59',
      '2026-01-01T10:00:00+15:00',
      '2026-01-01T24:00:00Z',
      '2026-01-01T10:60:00Z',
      '2026-01-01T10:00:60Z',
      '2026-01-01T10:00:00',
      '2026-01-01',
      '+275760-09-13T00:00:00.000Z',
    ])('422 at occurred_at for %p', async (value) => {
      const res = await event(value);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['occurred_at']);
    });

    it.each(['2028-02-29T10:00:00Z', '2026-11-23T10:00:00.123456+14:00', '2000-01-01T00:00:00Z', '2100-12-31T23:59:59.999+12:00'])(
      'accepts %p (then the unknown notification is a 404)',
      async (value) => {
        expect((await event(value)).status).toBe(404);
      },
    );
  });

  describe('Idempotency-Key (item 9)', () => {
    it('422 at idempotency_key for two Idempotency-Key headers', async () => {
      const body = JSON.stringify(SEND);
      const res = await rawRequest(
        port,
        `POST /api/v1/notifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.token}\r\nContent-Type: application/json\r\n` +
          `Idempotency-Key: a\r\nIdempotency-Key: b\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      expect(res.status).toBe(422);
      expect(JSON.parse(res.body).errors).toEqual({ idempotency_key: ['The Idempotency-Key header must be sent only once.'] });
    });

    it('a JSON 400 for a control character in the header', async () => {
      const res = await rawRequest(
        port,
        `POST /api/v1/notifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.token}\r\nIdempotency-Key: a\x01b\r\nContent-Length: 0\r\n\r\n`,
      );
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toEqual({ message: 'Bad Request.' });
    });
  });

  describe('errors raised before any route runs are JSON too', () => {
    it('400 "Bad Request." for bad percent-encoding in a path', async () => {
      const res = await ctx.http().get('/api/v1/installations/%E0%A4%A').set(bearer(tenant.token));
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ message: 'Bad Request.' });
    });

    it.each([
      ['a control character in a header', 'GET /health/live HTTP/1.1\r\nHost: x\r\nX-Thing: a\x7fb\x00c\r\n\r\n'],
      ['a malformed request line', 'GET /health/live HTTP/9.9 extra\r\nHost: x\r\n\r\n'],
      ['a request that is not HTTP', 'hello there\r\n\r\n'],
    ])('400 JSON for %s', async (_name, request) => {
      const res = await rawRequest(port, request);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toEqual({ message: 'Bad Request.' });
    });

    it.each([
      ['headers', `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
      ['a URL', `GET /health/live?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ])('431 JSON for %s over the limit', async (_name, request) => {
      const res = await rawRequest(port, request);
      expect(res.status).toBe(431);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toEqual({ message: 'Request Header Fields Too Large.' });
    });
  });
});

describe("a request slower than Node's request timeout", () => {
  it('gets 408 with a JSON body from the same clientError handler', async () => {
    // A bare server with a short timeout exercises the same handler (the app's: slow-clients.e2e-spec.ts).
    const server = createServer({ requestTimeout: 300, connectionsCheckingInterval: 50 }, (_req, res) => res.end('unreachable'));
    answerClientErrors(server);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const res = await rawRequest((server.address() as { port: number }).port, 'GET /health/live HTTP/1.1\r\nHost: x\r\n');
      expect(res.status).toBe(408);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toEqual({ message: 'Request Timeout.' });
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });
});

describe('tokens in URLs are redacted from the logs of the built service (item 2)', () => {
  const stores = useBuiltServices();

  it('logs access_token, token and api_key query parameters as [Redacted] in req.url and req.query', async () => {
    const port = await freePort();
    const service = ServiceProcess.start(
      serviceEnv({ databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix }, { APP_MODE: 'api', PORT: String(port), LOG_LEVEL: 'info' }),
    );
    await service.waitForHttp(port);
    const secrets = ['pns_QUERYSECRETquerysecretQUERYSECRETquerysecret1', 'SECOND-SECRET', 'THIRD-SECRET'];
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/notifications?limit=5&access_token=${secrets[0]}&token=${secrets[1]}&api%5Fkey=${secrets[2]}`, {
      headers: { 'X-Request-Id': 'redaction-check' },
    });
    expect(res.status).toBe(401);
    expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const line = lines(service.stdout)
      .map((text) => JSON.parse(text))
      .find((entry) => entry.request_id === 'redaction-check' && entry.req);
    expect(line.req.url).toBe('/api/v1/notifications?limit=5&access_token=[Redacted]&token=[Redacted]&api%5Fkey=[Redacted]');
    expect(line.req.query).toEqual({ limit: '5', access_token: '[Redacted]', token: '[Redacted]', api_key: '[Redacted]' });
    for (const secret of secrets) expect(service.stdout).not.toContain(secret);
  });
});
