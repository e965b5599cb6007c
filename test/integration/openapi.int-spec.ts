import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import fc from 'fast-check';
import type { Response } from 'supertest';
import { useTestApp } from '../support/create-test-app';
import { bearer, fcmToken, installationId, newApp, newInstallation, TestTenant } from '../support/factories';
import { arbitraryOf, OpenApiDocument, responseChecker, Schema } from '../support/openapi-schemas';
import { servedRoutes } from '../support/served-routes';
import { reservedDataKey } from '../../src/notifications/dto/send-notification.dto';

type Operation = {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema?: unknown; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  description?: string;
  'x-required-abilities'?: string[];
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, unknown> } };

describe('OpenAPI document and Swagger UI (issue #4.1)', () => {
  // The built-in allow-list, so the request examples' public push service endpoint is accepted.
  const ctx = useTestApp({ env: { WEB_PUSH_ALLOWED_HOSTS: '' } });
  let tenant: TestTenant;
  let doc: Document;

  const operations = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

  beforeAll(async () => {
    tenant = await newApp(ctx);
    const res = await ctx.http().get('/docs-json').expect(200);
    doc = res.body;
  });

  it('serves the document at /docs-json and Swagger UI at /docs, without a token', async () => {
    const json = await ctx.http().get('/docs-json');
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toMatch(/application\/json/);
    const ui = await ctx.http().get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.headers['content-type']).toMatch(/text\/html/);
    expect(ui.text).toContain('swagger-ui');
    const init = await ctx.http().get('/docs/swagger-ui-init.js').expect(200);
    // The token pasted into "Authorize" is kept across reloads.
    expect(init.text).toContain('"persistAuthorization": true');
  });

  it('is a valid OpenAPI 3 document', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('documents exactly the routes the app serves', () => {
    const served = servedRoutes(ctx.app)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .sort();
    const documented = operations()
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(served).toEqual(
      expect.arrayContaining([
        'PUT /api/v1/installations/{installationId}',
        'PATCH /api/v1/installations/{installationId}',
        'GET /api/v1/installations/{installationId}',
        'DELETE /api/v1/installations/{installationId}',
        'POST /api/v1/notifications',
        'GET /api/v1/notifications',
        'GET /api/v1/notifications/{id}',
        'GET /api/v1/notifications/{id}/deliveries',
        'GET /health/live',
        'GET /health/ready',
      ]),
    );
    // The operator dashboard's API is no part of the apps' API: docs/operations.md lists it (below), and its own
    // document describes it (clients/admin/openapi.json, checked by admin-api.int-spec.ts).
    expect(documented).toEqual(served.filter((route) => !route.includes(' /admin/api/')));
  });

  it("lists every route of the operator dashboard's API in docs/operations.md instead", () => {
    const operationsDoc = readFileSync(resolve(__dirname, '../../docs/operations.md'), 'utf8');
    const admin = servedRoutes(ctx.app)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .filter((route) => route.includes(' /admin/api/'));
    expect(admin.length).toBeGreaterThanOrEqual(10);
    expect(admin.filter((route) => !operationsDoc.includes(`\`${route}\``))).toEqual([]);
    expect(operations().filter(({ path }) => path.startsWith('/admin'))).toEqual([]);
  });

  it('declares the bearer scheme, and on every API route the ability and the answers given before the handler', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const api = operations().filter(({ path }) => path.startsWith('/api/'));
    expect(api.length).toBeGreaterThanOrEqual(7);
    for (const { path, method, op } of api) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, security: op.security }).toEqual({ where, security: [{ bearer: [] }] });
      // GET /api/v1/app and the topics list are open to any token of the app (docs/api.md "App settings", #topics).
      const anyToken = where === 'GET /api/v1/app' || where === 'GET /api/v1/topics';
      expect({ where, abilities: op['x-required-abilities'] }).toEqual({
        where,
        abilities: anyToken ? [] : expect.arrayContaining([expect.stringMatching(/^[a-z]+:[a-z]+$/)]),
      });
      expect(op.description).toMatch(anyToken ? /^\*\*Ability:\*\* any/ : /^\*\*Ability:\*\* `[a-z]+:[a-z]+`/);
      for (const status of ['401', '403', '429', '500']) {
        expect({ where, status, schema: op.responses[status]?.content?.['application/json']?.schema?.$ref }).toEqual({
          where,
          status,
          schema: '#/components/schemas/ErrorResponse',
        });
      }
      expect(Object.keys(op.responses).some((status) => status.startsWith('2'))).toBe(true);
      if (op.requestBody) {
        for (const status of ['400', '413', '415']) expect({ where, status, has: status in op.responses }).toEqual({ where, status, has: true });
        expect(op.responses['422'].content!['application/json'].schema!.$ref).toBe('#/components/schemas/ValidationErrorResponse');
      }
    }
  });

  it('request objects refuse unknown keys, and PATCH needs at least one field, as the service does', async () => {
    const schemas = (doc as unknown as OpenApiDocument).components.schemas;
    for (const name of [
      'RegisterInstallationDto',
      'UpdateInstallationDto',
      'SendNotificationDto',
      'RecipientsDto',
      'NotificationContentDto',
      'NotificationOptionsDto',
      'RecordEventDto',
      'DeviceDto',
      'WebPushSubscriptionDto',
      'WebPushKeysDto',
    ]) {
      expect({ name, additionalProperties: schemas[name].additionalProperties }).toEqual({ name, additionalProperties: false });
    }
    expect(schemas.UpdateInstallationDto.minProperties).toBe(1);
    const existing = await newInstallation(ctx, tenant.token);
    const res = await ctx.http().patch(`/api/v1/installations/${existing.installation_id}`).set(bearer(tenant.token)).send({});
    expect(res.status).toBe(422);
  });

  it('leaves the health checks public', () => {
    for (const path of ['/health/live', '/health/ready']) {
      expect(doc.paths[path].get.security).toBeUndefined();
    }
  });

  it('documents the Idempotency-Key header and the 409 of the send', () => {
    const send = doc.paths['/api/v1/notifications'].post;
    expect(send.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false })]));
    expect(send.responses['409']).toBeDefined();
    expect(send.responses['202']).toBeDefined();
  });

  it('documents what the URL fields refuse: unsafe link schemes, IP and local hosts, user info; and the 413/415 of the cancel', () => {
    const content = (doc as any).components.schemas.NotificationContentDto.properties;
    const unsafe = new RegExp(content.action_url.not.pattern);
    for (const url of ['javascript://x', 'DATA:text/html,x', 'VBScript://x', 'file:///etc/passwd']) expect(unsafe.test(url)).toBe(true);
    expect(unsafe.test('myapp://orders/42')).toBe(false);
    const image = new RegExp(content.image_url.pattern);
    for (const url of ['https://127.0.0.1/a.png', 'https://localhost/a.png', 'https://intranet/a.png', 'https://u:p@cdn.example.com/a.png']) {
      expect(image.test(url)).toBe(false);
    }
    expect(image.test('https://cdn.example.com/a.png')).toBe(true);
    const cancel = doc.paths['/api/v1/notifications/{id}/cancel'].post;
    for (const status of ['413', '415', '422']) expect(cancel.responses[status]).toBeDefined();
  });

  it('every request example is a request the API accepts, as Swagger UI would send it', async () => {
    const examples = (path: string, method: string) =>
      Object.values(doc.paths[path][method].requestBody!.content['application/json'].examples ?? {}).map((example) => example.value);

    const registrations = examples('/api/v1/installations/{installationId}', 'put');
    expect(registrations.length).toBeGreaterThanOrEqual(3);
    for (const body of registrations) {
      const res = await ctx
        .http()
        .put(`/api/v1/installations/${installationId()}`)
        .set(bearer(tenant.token))
        .send(body as object);
      expect({ body, status: res.status, errors: res.body.errors }).toEqual({ body, status: 201, errors: undefined });
    }

    const existing = await newInstallation(ctx, tenant.token);
    for (const body of examples('/api/v1/installations/{installationId}', 'patch')) {
      const res = await ctx
        .http()
        .patch(`/api/v1/installations/${existing.installation_id}`)
        .set(bearer(tenant.token))
        .send(body as object);
      expect({ body, status: res.status }).toEqual({ body, status: 200 });
    }

    let sent = '';
    for (const body of examples('/api/v1/notifications', 'post')) {
      const res = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .send(body as object);
      expect({ body, status: res.status, errors: res.body.errors }).toEqual({ body, status: 202, errors: undefined });
      sent = res.body.data.id;
    }

    // The event example is well-formed; its installation was not a target of this notification.
    for (const body of examples('/api/v1/notifications/{id}/events', 'post')) {
      const res = await ctx
        .http()
        .post(`/api/v1/notifications/${sent}/events`)
        .set(bearer(tenant.token))
        .send(body as object);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['installation_id']);
    }
  });

  /**
   * Issue 11 item 8: the document says exactly what the service does. Bodies generated from the
   * document's own request schemas must all be accepted, and every answer must be a status the
   * operation documents, with a body matching its schema. Where a rule depends on stored state
   * (a platform cannot change; push_token is for ios/android, web_push_subscription for web, as
   * the operations' descriptions say), the request goes to an installation of the fitting platform.
   */
  describe('generated from the document: schema-valid bodies are accepted, answers match the document', () => {
    const RUNS = 60;
    const settings = { numRuns: RUNS, endOnFailure: true };
    let check: ReturnType<typeof responseChecker>;
    let schemaOf: (path: string, method: string) => Schema;
    let android: string;
    let web: string;
    const limits = {
      // Title, body and data together must fit the smallest provider payload (documented on the send).
      maxStringLength: 64,
      maxFreeKeys: 4,
      reservedKeys: (key: string) => reservedDataKey(key) !== null,
    };

    beforeAll(async () => {
      const document = doc as unknown as OpenApiDocument;
      check = responseChecker(document);
      schemaOf = (path, method) => (document.paths[path][method] as unknown as Operation).requestBody!.content['application/json'].schema as Schema;
      android = (await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken() })).installation_id;
      web = (
        await newInstallation(ctx, tenant.token, {
          platform: 'web',
          push_token: undefined,
          web_push_subscription: {
            endpoint: 'https://fcm.googleapis.com/fcm/send/generated',
            keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
          },
        })
      ).installation_id;
    });

    const expectDocumented = (path: string, method: string, res: Response, sent: unknown) => {
      const problem = check(path, method, res.status, res.body, res.text ?? '');
      if (problem) throw new Error(`${method.toUpperCase()} ${path} ${JSON.stringify(sent)?.slice(0, 400)}: ${problem}`);
    };
    const expectAccepted = (path: string, method: string, res: Response, sent: unknown, statuses: number[]) => {
      expectDocumented(path, method, res, sent);
      if (!statuses.includes(res.status)) {
        throw new Error(
          `${method.toUpperCase()} ${path} refused a schema-valid body ${JSON.stringify(sent)?.slice(0, 400)}: ${res.status} ${res.text?.slice(0, 300)}`,
        );
      }
    };

    /**
     * A topic must exist, which no schema says (docs/api.md#topic-sends): generated ones are left out. So must a
     * template (docs/api.md#sending-with-a-template), and a send has `template` or `notification`, not both: a
     * generated template is replaced by a notification. A declarative send needs an action_url
     * (docs/api.md#declarative-web-push, as its description says): without one it is not declarative. Personalized
     * texts must parse as Liquid (docs/api.md#liquid): generated text with `{{` or `{%` is sent without personalize.
     * Variants stand in place of `notification` and may name templates, and an A/B test needs them and refuses
     * local times and pacing (docs/api.md#variants): generated ones are left out (tested in ab-tests.int-spec.ts).
     */
    const withoutTopics = (generated: Record<string, any>) => {
      const { template, variants: _variants, ...body } = generated;
      if (body.options?.ab_test !== undefined) {
        const { ab_test: _abTest, ...rest } = body.options;
        body.options = rest;
      }
      if (template !== undefined && !body.notification && body.options?.widgets !== true) body.notification = { title: 't', body: 'b' };
      const { topic: _topic, ...options } = body.options ?? {};
      if (options.web?.declarative === true && !body.notification?.action_url) options.web = { ...options.web, declarative: false };
      if (options.personalize === true && /\{\{|\{%/.test(JSON.stringify(body.notification))) options.personalize = false;
      const recipients = body.recipients?.topic === undefined ? body.recipients : { all: true };
      return { ...body, recipients, ...(body.options ? { options } : {}) };
    };

    it('POST /api/v1/notifications', async () => {
      const path = '/api/v1/notifications';
      await fc.assert(
        fc.asyncProperty(arbitraryOf(doc as unknown as OpenApiDocument, schemaOf(path, 'post'), limits), async (generated) => {
          const body = withoutTopics(generated as Record<string, any>);
          const res = await ctx.http().post(path).set(bearer(tenant.token)).send(body);
          expectAccepted(path, 'post', res, body, [202]);
        }),
        settings,
      );
    });

    it('PATCH and PUT /api/v1/installations/{installationId} (refreshing an installation of the fitting platform)', async () => {
      const path = '/api/v1/installations/{installationId}';
      for (const method of ['patch', 'put'] as const) {
        await fc.assert(
          fc.asyncProperty(arbitraryOf(doc as unknown as OpenApiDocument, schemaOf(path, method), limits), async (generated) => {
            const body = { ...(generated as Record<string, unknown>) };
            const target = body.web_push_subscription !== undefined ? web : android;
            if (target === web) delete body.push_token;
            // Live Activity start tokens and widget tokens are iOS only (docs/api.md#live-activity-start-tokens, docs/api.md#widgets); these installations are not.
            delete body.live_activity_start_tokens;
            delete body.widget_push_token;
            if (body.platform !== undefined) body.platform = target === web ? 'web' : 'android';
            // The installation's own provider (docs/api.md#push-provider); switching needs the other token, as the description says.
            if (body.push_provider !== undefined) body.push_provider = target === web ? 'web_push' : 'fcm';
            const res = await ctx.http()[method](`/api/v1/installations/${target}`).set(bearer(tenant.token)).send(body);
            expectAccepted(path, method, res, body, [200]);
          }),
          { ...settings, numRuns: RUNS / 2 },
        );
      }
    });

    it('POST /api/v1/notifications/{id}/events (for an installation the notification was sent to)', async () => {
      const path = '/api/v1/notifications/{id}/events';
      const user = `events-${Date.now()}`;
      const target = await newInstallation(ctx, tenant.token, { user_id: user });
      const sent = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .send({ recipients: { user_ids: [user] }, notification: { title: 't', body: 'b' } });
      // What the worker's fan-out would have written (this app has no worker).
      await ctx.db.query(
        `WITH started AS (UPDATE notifications SET processing_started_at = now() WHERE id = $1 RETURNING processing_started_at)
         INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, batch, status)
         SELECT $1, $2, processing_started_at, 'ios', 0, 'accepted' FROM started`,
        [sent.body.data.id, target.id],
      );
      await fc.assert(
        fc.asyncProperty(arbitraryOf(doc as unknown as OpenApiDocument, schemaOf(path, 'post'), limits), async (generated) => {
          const body = { ...(generated as Record<string, unknown>), installation_id: target.installation_id };
          const res = await ctx.http().post(`/api/v1/notifications/${sent.body.data.id}/events`).set(bearer(tenant.token)).send(body);
          expectAccepted(path, 'post', res, body, [202]);
        }),
        settings,
      );
    });

    it('GET /api/v1/notifications with generated query parameters, then every page', async () => {
      const path = '/api/v1/notifications';
      const parameters = (doc.paths[path].get.parameters ?? []) as unknown as { name: string; schema: Schema }[];
      const limit = parameters.find((p) => p.name === 'limit')!.schema;
      await fc.assert(
        fc.asyncProperty(arbitraryOf(doc as unknown as OpenApiDocument, { ...limit, nullable: false }, limits), async (value) => {
          const res = await ctx
            .http()
            .get(path)
            .query({ limit: value as number })
            .set(bearer(tenant.token));
          expectAccepted(path, 'get', res, { limit: value }, [200]);
        }),
        { ...settings, numRuns: 20 },
      );
    });

    it('GET /api/v1/notifications/{id}/deliveries with generated query parameters: entries and pages as documented', async () => {
      const path = '/api/v1/notifications/{id}/deliveries';
      const user = `trace-${Date.now()}`;
      const targets = [
        await newInstallation(ctx, tenant.token, { user_id: user }),
        await newInstallation(ctx, tenant.token, { platform: 'android', push_token: fcmToken(), user_id: user }),
        await newInstallation(ctx, tenant.token, { user_id: user }),
      ];
      const sent = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .send({ recipients: { user_ids: [user] }, notification: { title: 't', body: 'b' } });
      // What the worker's fan-out and outcomes would have written (this app has no worker), and an event.
      await ctx.db.query(
        `WITH started AS (UPDATE notifications SET processing_started_at = now() WHERE id = $1 RETURNING processing_started_at)
         INSERT INTO deliveries (notification_id, installation_id, notification_started_at, platform, user_id, batch, status, reason, attempts, scheduled_for)
         SELECT $1, t.id, processing_started_at, t.platform, $3, 0, t.status, t.reason, t.attempts, t.scheduled_for
         FROM started, unnest($2::uuid[], ARRAY['ios', 'android', 'ios'], ARRAY['accepted', 'skipped', 'pending'],
           ARRAY[NULL, 'NoCredentials', 'ServiceUnavailable'], ARRAY[1, 0, 1], ARRAY[NULL, NULL, now()]::timestamptz[])
           AS t(id, platform, status, reason, attempts, scheduled_for)`,
        [sent.body.data.id, targets.map((t) => t.id), user],
      );
      await ctx
        .http()
        .post(`/api/v1/notifications/${sent.body.data.id}/events`)
        .set(bearer(tenant.token))
        .send({ installation_id: targets[0].installation_id, type: 'opened' })
        .expect(202);
      const parameters = (doc.paths[path].get.parameters ?? []) as unknown as { name: string; schema: Schema }[];
      const schema = (name: string) => ({ ...parameters.find((p) => p.name === name)!.schema, nullable: false });
      const url = `/api/v1/notifications/${sent.body.data.id}/deliveries`;
      await fc.assert(
        fc.asyncProperty(
          arbitraryOf(doc as unknown as OpenApiDocument, schema('limit'), limits),
          fc.option(arbitraryOf(doc as unknown as OpenApiDocument, schema('status'), limits), { nil: undefined }),
          async (limit, status) => {
            const query = { limit: limit as number, ...(status === undefined ? {} : { status: status as string }) };
            const res = await ctx.http().get(url).query(query).set(bearer(tenant.token));
            expectAccepted(path, 'get', res, query, [200]);
            if (res.body.meta.next_cursor) {
              const next = await ctx
                .http()
                .get(url)
                .query({ ...query, cursor: res.body.meta.next_cursor })
                .set(bearer(tenant.token));
              expectAccepted(path, 'get', next, query, [200]);
            }
          },
        ),
        { ...settings, numRuns: 20 },
      );
      // The whole trace, every field documented and present.
      const all = await ctx.http().get(url).set(bearer(tenant.token)).expect(200);
      expectDocumented(path, 'get', all, null);
      expect(all.body.data).toHaveLength(3);
    });

    it('answers that are not 2xx are documented too: 400, 401, 403, 404, 409, 413, 415, 422', async () => {
      const readOnly = await newApp(ctx, 'Documented errors');
      const cases: [string, string, () => Promise<Response>][] = [
        ['/api/v1/notifications', 'post', () => ctx.http().post('/api/v1/notifications').send({})],
        ['/api/v1/notifications', 'post', () => ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).send({})],
        ['/api/v1/notifications', 'post', () => ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).set('Content-Type', 'text/plain').send('x')],
        [
          '/api/v1/notifications',
          'post',
          () => ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).set('Content-Type', 'application/json').send('{"x":'),
        ],
        [
          '/api/v1/notifications',
          'post',
          () =>
            ctx
              .http()
              .post('/api/v1/notifications')
              .set(bearer(tenant.token))
              .set('Content-Type', 'application/json')
              .send(`{"x":"${'a'.repeat(1_100_000)}"}`),
        ],
        ['/api/v1/notifications', 'get', () => ctx.http().get('/api/v1/notifications').query({ cursor: 'forged' }).set(bearer(tenant.token))],
        ['/api/v1/notifications/{id}', 'get', () => ctx.http().get('/api/v1/notifications/0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10').set(bearer(tenant.token))],
        [
          '/api/v1/notifications/{id}/deliveries',
          'get',
          () => ctx.http().get('/api/v1/notifications/0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10/deliveries').set(bearer(tenant.token)),
        ],
        [
          '/api/v1/notifications/{id}/deliveries',
          'get',
          () => ctx.http().get('/api/v1/notifications/0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10/deliveries').query({ limit: 0 }).set(bearer(tenant.token)),
        ],
        [
          '/api/v1/notifications/{id}/deliveries',
          'get',
          () => ctx.http().get('/api/v1/notifications/0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10/deliveries').query({ cursor: 'forged' }).set(bearer(tenant.token)),
        ],
        [
          '/api/v1/notifications/{id}/deliveries',
          'get',
          () => ctx.http().get('/api/v1/notifications/0b6f2f3e-6b1c-4d3a-9a57-2f8d9c1e4b10/deliveries').set(bearer(readOnly.token)),
        ],
        [
          '/api/v1/installations/{installationId}',
          'get',
          () =>
            ctx
              .http()
              .get(`/api/v1/installations/${'i'.repeat(256)}`)
              .set(bearer(tenant.token)),
        ],
        ['/api/v1/installations/{installationId}', 'get', () => ctx.http().get('/api/v1/installations/%E0%A4%A').set(bearer(tenant.token))],
        ['/api/v1/installations/{installationId}', 'delete', () => ctx.http().delete('/api/v1/installations/missing').set(bearer(tenant.token))],
        ['/api/v1/installations/{installationId}', 'delete', () => ctx.http().delete(`/api/v1/installations/${android}x`).set(bearer(readOnly.token))],
      ];
      const seen = new Set<number>();
      for (const [path, method, request] of cases) {
        const res = await request();
        seen.add(res.status);
        expectDocumented(path, method, res, null);
      }
      const key = `documented-${Date.now()}`;
      const first = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .set('Idempotency-Key', key)
        .send({ recipients: { user_ids: ['a'] }, notification: { title: 't', body: 'b' } });
      const conflict = await ctx
        .http()
        .post('/api/v1/notifications')
        .set(bearer(tenant.token))
        .set('Idempotency-Key', key)
        .send({ recipients: { user_ids: ['b'] }, notification: { title: 't', body: 'b' } });
      for (const res of [first, conflict]) {
        seen.add(res.status);
        expectDocumented('/api/v1/notifications', 'post', res, null);
      }
      expect([...seen].sort()).toEqual(expect.arrayContaining([202, 400, 401, 404, 409, 413, 415, 422]));
    });
  });
});
