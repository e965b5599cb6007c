import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PinoLogger } from 'nestjs-pino';
import { LOG_DESTINATION } from '../../src/logging/logging.module';
import { useTestApp } from '../support/create-test-app';
import { apnsToken, bearer, installationId, newApp, TestTenant } from '../support/factories';
import { freePort, lines, serviceEnv, ServiceProcess } from '../support/processes';
import { TEST_REDIS_URL } from '../support/services';
import { useBuiltServices } from '../support/use-built-services';

/** What the app writes, as parsed JSON lines; nothing reaches the test's stdout. */
class Capture {
  raw = '';
  write(chunk: string): boolean {
    this.raw += chunk;
    return true;
  }
  lines(): Record<string, any>[] {
    return this.raw
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  }
  requestLine(requestId: string): Record<string, any> | undefined {
    return this.lines().find((line) => line.request_id === requestId && line.msg === 'request completed');
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SUBSCRIPTION = {
  endpoint: 'https://localhost/send/secret-endpoint-path',
  keys: { p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg' },
};

describe('structured logs (issue #4.3)', () => {
  const capture = new Capture();
  const ctx = useTestApp({
    // Tests are silent by default (LOG_LEVEL=silent in setup-env); this one reads the real lines.
    env: { LOG_LEVEL: 'info' },
    override: (builder) => builder.overrideProvider(LOG_DESTINATION).useValue(capture),
  });
  let tenant: TestTenant;
  let tokenId: string;

  beforeAll(async () => {
    tenant = await newApp(ctx);
    [{ id: tokenId }] = await ctx.db.query(`SELECT id FROM api_tokens WHERE app_id = $1`, [tenant.appId]);
  });

  it("writes one JSON line per request, with the caller's X-Request-Id, which the response echoes", async () => {
    const pushToken = apnsToken();
    const res = await ctx
      .http()
      .put(`/api/v1/installations/${installationId()}`)
      .set(bearer(tenant.token))
      .set('X-Request-Id', 'req-abc-123')
      .send({ platform: 'ios', push_token: pushToken, user_id: 'log-user' })
      .expect(201);
    expect(res.headers['x-request-id']).toBe('req-abc-123');
    const line = capture.requestLine('req-abc-123');
    expect(line).toMatchObject({
      level: 30,
      request_id: 'req-abc-123',
      token_id: tokenId,
      app_id: tenant.appId,
      req: { method: 'PUT', headers: { authorization: '[Redacted]' } },
      res: { statusCode: 201 },
    });
    expect(line!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(capture.raw).not.toContain(pushToken);
  });

  it("censors every secret-named header on the request line, and secrets in a child logger's bindings", async () => {
    await ctx
      .http()
      .get('/api/v1/notifications')
      .set(bearer(tenant.token))
      .set('Cookie', 'session=SECRET-COOKIE')
      .set('Proxy-Authorization', 'Basic SECRET-PROXY')
      .set('X-Api-Key', 'SECRET-API-KEY')
      .set('X-Request-Id', 'req-headers-1')
      .expect(200);
    expect(capture.requestLine('req-headers-1')).toMatchObject({
      req: {
        headers: {
          authorization: '[Redacted]',
          cookie: '[Redacted]',
          'proxy-authorization': '[Redacted]',
          'x-api-key': '[Redacted]',
          'x-request-id': 'req-headers-1',
        },
      },
    });
    const logger = await ctx.app.resolve(PinoLogger);
    logger.logger.child({ token: tenant.token, context: 'bound' }).info('from a child');
    expect(capture.lines().find((entry) => entry.msg === 'from a child')).toMatchObject({ token: '[Redacted]', context: 'bound' });
    for (const secret of [tenant.token, 'SECRET-']) expect(capture.raw).not.toContain(secret);
  });

  it('generates a request id when none (or an unusable one) is sent', async () => {
    const plain = await ctx.http().get('/api/v1/notifications').set(bearer(tenant.token)).expect(200);
    expect(plain.headers['x-request-id']).toMatch(UUID);
    expect(capture.requestLine(plain.headers['x-request-id'])).toMatchObject({ token_id: tokenId, app_id: tenant.appId });

    const odd = await ctx.http().get('/api/v1/notifications').set(bearer(tenant.token)).set('X-Request-Id', 'has spaces "and" quotes');
    expect(odd.headers['x-request-id']).toMatch(UUID);
  });

  it('logs refused requests too, without a caller', async () => {
    const res = await ctx.http().get('/api/v1/notifications').set('Authorization', 'Bearer pns_not-a-real-token-at-all').expect(401);
    const line = capture.requestLine(res.headers['x-request-id']);
    expect(line).toMatchObject({ res: { statusCode: 401 } });
    expect(line).not.toHaveProperty('token_id');
    expect(capture.raw).not.toContain('pns_not-a-real-token-at-all');
  });

  it('never writes bearer tokens, push tokens, subscriptions or provider private keys', async () => {
    await ctx
      .http()
      .put(`/api/v1/installations/${installationId()}`)
      .set(bearer(tenant.token))
      .send({ platform: 'web', web_push_subscription: SUBSCRIPTION })
      .expect(201);

    // The shapes our own code could log: a request body, credentials, a CLI result.
    const logger = await ctx.app.resolve(PinoLogger);
    logger.info(
      {
        body: { push_token: 'SECRET-PUSH-TOKEN', web_push_subscription: SUBSCRIPTION, user_id: 'visible-user' },
        credentials: {
          apns: { key_id: 'ABC123DEFG', private_key: '-----BEGIN PRIVATE KEY-----SECRET-P8' },
          fcm: { service_account: { client_email: 'svc@example.iam.gserviceaccount.com', private_key: 'SECRET-FCM-KEY' } },
          web: { vapid_public_key: 'BPublicKey', vapid_private_key: 'SECRET-VAPID', vapidPrivateKey: 'SECRET-VAPID-2' },
        },
        token: tenant.token,
        headers: { authorization: `Bearer ${tenant.token}` },
        token_id: tokenId,
      },
      'configured',
    );
    const line = capture.lines().find((entry) => entry.msg === 'configured')!;
    expect(line).toMatchObject({
      body: { push_token: '[Redacted]', web_push_subscription: '[Redacted]', user_id: 'visible-user' },
      credentials: {
        apns: { key_id: 'ABC123DEFG', private_key: '[Redacted]' },
        fcm: { service_account: { client_email: 'svc@example.iam.gserviceaccount.com', private_key: '[Redacted]' } },
        web: { vapid_public_key: 'BPublicKey', vapid_private_key: '[Redacted]', vapidPrivateKey: '[Redacted]' },
      },
      token: '[Redacted]',
      headers: { authorization: '[Redacted]' },
      token_id: tokenId,
    });
    for (const secret of [tenant.token, 'SECRET-', SUBSCRIPTION.keys.auth, SUBSCRIPTION.keys.p256dh, 'secret-endpoint-path']) {
      expect(capture.raw).not.toContain(secret);
    }
  });

  it('censors our tokens by their shape, in any query parameter, header or field (issue 26 item 5)', async () => {
    const identitySecret = 'idv_' + 'A1b2C3d4'.repeat(6);
    const webhookSecret = 'whsec_' + 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODk='.slice(0, 43) + '=';
    for (const name of ['api_token', 'bearer', 'auth', 'whatever']) {
      await ctx.http().get(`/api/v1/notifications?${name}=${tenant.token}`).set(bearer(tenant.token)).set('X-Request-Id', `req-query-${name}`);
    }
    for (const header of ['X-Auth-Token', 'X-Token', 'Api-Token', 'Bearer', 'X-Something-Else']) {
      await ctx.http().get('/api/v1/notifications').set(bearer(tenant.token)).set(header, tenant.token).set('X-Request-Id', `req-header-${header}`);
    }
    await ctx.http().get(`/api/v1/notifications/${tenant.token}`).set(bearer(tenant.token)).set('X-Request-Id', 'req-path');
    const logger = await ctx.app.resolve(PinoLogger);
    logger.info({ note: `rotated to ${identitySecret}`, list: [webhookSecret], deep: { a: { b: tenant.token } } }, 'shapes');
    logger.info(`message carrying ${tenant.token}`);
    expect(capture.requestLine('req-query-api_token')).toMatchObject({ req: { url: '/api/v1/notifications?api_token=[Redacted]' } });
    expect(capture.requestLine('req-header-X-Auth-Token')).toMatchObject({ req: { headers: { 'x-auth-token': '[Redacted]' } } });
    expect(capture.lines().find((entry) => entry.msg === 'shapes')).toMatchObject({
      note: 'rotated to [Redacted]',
      list: ['[Redacted]'],
      deep: { a: { b: '[Redacted]' } },
    });
    for (const secret of [tenant.token, tenant.token.slice(4), identitySecret, webhookSecret.slice(0, 20)]) expect(capture.raw).not.toContain(secret);
  });

  it('honours LOG_LEVEL', async () => {
    const logger = await ctx.app.resolve(PinoLogger);
    logger.debug('a debug line');
    logger.warn('a warn line');
    const messages = capture.lines().map((line) => line.msg);
    expect(messages).toContain('a warn line');
    expect(messages).not.toContain('a debug line');
  });
});

describe('log output of the built service: LOG_PRETTY and LOG_LEVEL (issue #4.3)', () => {
  const stores = useBuiltServices();

  /** Starts `api` mode, sends one request with a known id, stops it; its port and stdout lines. */
  const run = async (extra: Record<string, string>) => {
    const port = await freePort();
    const service = ServiceProcess.start(
      serviceEnv({ databaseUrl: stores.database.url, queuePrefix: stores.queuePrefix }, { APP_MODE: 'api', PORT: String(port), ...extra }),
    );
    await service.waitForHttp(port);
    await fetch(`http://127.0.0.1:${port}/api/v1/notifications`, { headers: { 'X-Request-Id': 'process-log-check' } });
    expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    return { port, output: lines(service.stdout) };
  };
  /** A JSON object line (pino's); a pretty-printed value such as `"api"` alone does not count. */
  const isJson = (line: string) => {
    try {
      const value: unknown = JSON.parse(line);
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    } catch {
      return false;
    }
  };

  it('writes JSON lines by default, startup lines included: a few, naming mode, port, version and backends', async () => {
    const { port, output } = await run({ LOG_LEVEL: 'info' });
    expect(output.every(isJson)).toBe(true);
    const parsed = output.map((line) => JSON.parse(line) as { msg: string; context?: string });
    expect(parsed).toEqual(expect.arrayContaining([expect.objectContaining({ msg: expect.stringMatching(/^Started in api mode/) })]));
    expect(parsed).toEqual(
      expect.arrayContaining([expect.objectContaining({ request_id: 'process-log-check', res: expect.objectContaining({ statusCode: 401 }) })]),
    );
    const started = parsed.findIndex((line) => /^Started in/.test(line.msg));
    expect(started + 1).toBeLessThanOrEqual(10);
    const version = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;
    const [database, redis] = [new URL(stores.database.url), new URL(TEST_REDIS_URL)];
    expect(parsed[started].msg).toBe(
      `Started in api mode on port ${port}; version ${version}, postgres://${database.host}${database.pathname}, redis://${redis.host} (queue prefix ${stores.queuePrefix})`,
    );
    expect(parsed.filter((line) => ['InstanceLoader', 'RoutesResolver', 'RouterExplorer'].includes(line.context ?? ''))).toEqual([]);
  });

  it("keeps Nest's wiring lines at debug", async () => {
    const { output } = await run({ LOG_LEVEL: 'debug' });
    const parsed = output.map((line) => JSON.parse(line) as { level: number; context?: string });
    const wiring = parsed.filter((line) => line.context === 'RouterExplorer');
    expect(wiring.length).toBeGreaterThan(10);
    expect(wiring.every((line) => line.level === 20)).toBe(true);
  });

  it('writes human-readable lines with LOG_PRETTY=true', async () => {
    const { output } = await run({ LOG_LEVEL: 'info', LOG_PRETTY: 'true' });
    expect(output.some((line) => /Started in api mode/.test(line))).toBe(true);
    expect(output.some(isJson)).toBe(false);
  });

  it('leaves out lines below LOG_LEVEL', async () => {
    const { output } = await run({ LOG_LEVEL: 'warn' });
    expect(output.join('\n')).not.toMatch(/Started in api mode|process-log-check/);
  });
});
