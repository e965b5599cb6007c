import SwaggerParser from '@apidevtools/swagger-parser';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApiModule } from '../app.module';
import { buildOpenApiDocument } from '../common/http/openapi';
import { WebPushHosts } from '../common/web-push-hosts';
import { adminOpenApiText, CSRF_SCHEME, SESSION_SCHEME } from './admin-openapi';
import { OPERATOR_ROLES, ROLE_EXTENSION } from './admin.guard';

const FILE = resolve(__dirname, '../../clients/admin/openapi.json');

type Operation = { security?: Record<string, string[]>[]; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };

const operations = (document: OpenAPIObject) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, method, operation })),
  );

/** The component schemas `value` refers to, and those they refer to in turn. */
function referenced(document: OpenAPIObject, value: unknown, seen = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => referenced(document, item, seen));
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') {
        const name = item.replace('#/components/schemas/', '');
        if (!seen.has(name)) {
          seen.add(name);
          referenced(document, document.components!.schemas![name], seen);
        }
      } else referenced(document, item, seen);
    }
  }
  return seen;
}

/**
 * The operator dashboard's API has its own OpenAPI document, built from AdminController in Nest's
 * preview mode (no database, no Redis) and checked in as clients/admin/openapi.json, from which
 * the dashboard's types are generated (clients/admin/src/api.generated.test.ts checks that step).
 */
describe("the operator dashboard's OpenAPI document", () => {
  let app: INestApplication;
  let text: string;
  let admin: OpenAPIObject;

  beforeAll(async () => {
    app = await NestFactory.create(ApiModule, { preview: true, logger: false, bodyParser: false });
    text = adminOpenApiText(app);
    admin = JSON.parse(text) as OpenAPIObject;
  });
  afterAll(() => app?.close());

  it('is checked in as the code builds it (else: npm run openapi:admin)', () => {
    expect(readFileSync(FILE, 'utf8')).toBe(text);
  });

  it('is a valid OpenAPI 3 document', async () => {
    expect(admin.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(admin) as never)).resolves.toBeDefined();
  });

  it('describes /admin/api only, every success with a schema or no body', () => {
    const all = operations(admin);
    expect(all.length).toBeGreaterThanOrEqual(12);
    for (const { route, operation } of all) {
      expect(route).toMatch(/^[A-Z]+ \/admin\/api\//);
      // OIDC's start and callback are browser navigations: a redirect, not an answer (docs/api.md#oidc).
      if (route.startsWith('GET /admin/api/oidc/')) {
        expect({ route, statuses: Object.keys(operation.responses).filter((s) => /^[23]/.test(s)) }).toEqual({ route, statuses: ['303'] });
        continue;
      }
      const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      expect({ route, successes: success.length }).toEqual({ route, successes: 1 });
      const [status, response] = success[0];
      // The one file download (docs/api.md#analytics) is CSV.
      const type = route.endsWith('/trace.csv') ? 'text/csv' : 'application/json';
      if (status !== '204') expect({ route, schema: response.content?.[type]?.schema }).toEqual({ route, schema: expect.anything() });
    }
  });

  it('asks for the session on every route but logging in, reading the session and accepting an invitation, and for the CSRF token on every POST and DELETE', () => {
    const withoutSession = ['POST /admin/api/session', 'GET /admin/api/session', 'POST /admin/api/invitations/accept', 'GET /admin/api/oidc'];
    for (const { route, method, operation } of operations(admin)) {
      if (withoutSession.includes(route) || route.startsWith('GET /admin/api/oidc/')) {
        expect({ route, security: operation.security }).toEqual({ route, security: undefined });
        continue;
      }
      const security = method === 'get' ? [{ [SESSION_SCHEME]: [] }] : [{ [SESSION_SCHEME]: [], [CSRF_SCHEME]: [] }];
      expect({ route, security: operation.security }).toEqual({ route, security });
      // 403 on every route: the CSRF token on a change, and the role (docs/api.md#roles) on all.
      expect({ route, has401: '401' in operation.responses, has403: '403' in operation.responses }).toEqual({ route, has401: true, has403: true });
    }
  });

  it('names the least role on every route with a session (NeedsRole), and only a known role', () => {
    for (const { route, operation } of operations(admin)) {
      const role = (operation as Record<string, unknown>)[ROLE_EXTENSION];
      expect({ route, role }).toEqual({ route, role: operation.security ? expect.stringMatching(`^(${OPERATOR_ROLES.join('|')})$`) : undefined });
    }
    expect(Object.keys(admin.components!.securitySchemes!).sort()).toEqual([CSRF_SCHEME, SESSION_SCHEME]);
  });

  it('stays out of the public document: none of its routes, schemas or security schemes', () => {
    const apps = buildOpenApiDocument(app, () => WebPushHosts.fromSetting(undefined).endpointPattern());
    expect(Object.keys(apps.paths).filter((path) => path.startsWith('/admin'))).toEqual([]);
    const publicSchemas = referenced(apps, apps.paths);
    const adminOnly = [...referenced(admin, admin.paths)].filter((name) => !publicSchemas.has(name));
    expect(adminOnly).toEqual(expect.arrayContaining(['AdminOverview', 'OperatorNotificationResource', 'InstallationLookup']));
    expect(Object.keys(apps.components!.schemas!).filter((name) => adminOnly.includes(name))).toEqual([]);
    expect(Object.keys(apps.components!.securitySchemes!)).toEqual(['bearer']);
  });
});
