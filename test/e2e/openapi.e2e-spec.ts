import SwaggerParser from '@apidevtools/swagger-parser';
import type { INestApplication } from '@nestjs/common';
import { useTestApp } from '../support/create-test-app';
import { bearer, installationId, newApp, newInstallation, TestTenant } from '../support/factories';

type Operation = {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema?: unknown; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  description?: string;
  'x-required-abilities'?: string[];
};
type Document = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, unknown> } };

/**
 * Every route the running app serves, read from Express's router (not from the controllers), so a
 * route added anywhere, the events endpoint included, is checked without touching this test.
 * Swagger UI's own routes and middleware mounted on wildcards are left out.
 */
function servedRoutes(app: INestApplication): { method: string; path: string }[] {
  const router = app.getHttpAdapter().getInstance().router as { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  return router.stack
    .flatMap((layer) => (layer.route ? [layer.route] : []))
    .filter((route) => !route.path.startsWith('/docs') && !route.path.includes('*'))
    .flatMap((route) =>
      Object.keys(route.methods).map((method) => ({ method, path: route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}') })),
    );
}

describe('OpenAPI document and Swagger UI (issue #4.1)', () => {
  const ctx = useTestApp();
  let tenant: TestTenant;
  let doc: Document;

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

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
    const served = servedRoutes(ctx.app).map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort();
    const documented = operations().map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort();
    expect(served).toEqual(
      expect.arrayContaining([
        'PUT /api/v1/installations/{installationId}',
        'PATCH /api/v1/installations/{installationId}',
        'GET /api/v1/installations/{installationId}',
        'DELETE /api/v1/installations/{installationId}',
        'POST /api/v1/notifications',
        'GET /api/v1/notifications',
        'GET /api/v1/notifications/{id}',
        'GET /health/live',
        'GET /health/ready',
      ]),
    );
    expect(documented).toEqual(served);
  });

  it('declares the bearer scheme, and on every API route the ability and the answers given before the handler', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const api = operations().filter(({ path }) => path.startsWith('/api/'));
    expect(api.length).toBeGreaterThanOrEqual(7);
    for (const { path, method, op } of api) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, security: op.security }).toEqual({ where, security: [{ bearer: [] }] });
      expect({ where, abilities: op['x-required-abilities'] }).toEqual({
        where,
        abilities: expect.arrayContaining([expect.stringMatching(/^[a-z]+:[a-z]+$/)]),
      });
      expect(op.description).toMatch(/^\*\*Ability:\*\* `[a-z]+:[a-z]+`/);
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

  it('every request example is a request the API accepts, as Swagger UI would send it', async () => {
    const examples = (path: string, method: string) =>
      Object.values(doc.paths[path][method].requestBody!.content['application/json'].examples ?? {}).map((example) => example.value);

    const registrations = examples('/api/v1/installations/{installationId}', 'put');
    expect(registrations.length).toBeGreaterThanOrEqual(3);
    for (const body of registrations) {
      const res = await ctx.http().put(`/api/v1/installations/${installationId()}`).set(bearer(tenant.token)).send(body as object);
      expect({ body, status: res.status, errors: res.body.errors }).toEqual({ body, status: 201, errors: undefined });
    }

    const existing = await newInstallation(ctx, tenant.token);
    for (const body of examples('/api/v1/installations/{installationId}', 'patch')) {
      const res = await ctx.http().patch(`/api/v1/installations/${existing.installation_id}`).set(bearer(tenant.token)).send(body as object);
      expect({ body, status: res.status }).toEqual({ body, status: 200 });
    }

    let sent = '';
    for (const body of examples('/api/v1/notifications', 'post')) {
      const res = await ctx.http().post('/api/v1/notifications').set(bearer(tenant.token)).send(body as object);
      expect({ body, status: res.status, errors: res.body.errors }).toEqual({ body, status: 202, errors: undefined });
      sent = res.body.data.id;
    }

    // The event example is well-formed; its installation was not a target of this notification.
    for (const body of examples('/api/v1/notifications/{id}/events', 'post')) {
      const res = await ctx.http().post(`/api/v1/notifications/${sent}/events`).set(bearer(tenant.token)).send(body as object);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['installation_id']);
    }
  });
});
