import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject } from '@nestjs/swagger';
import { errorContent, scanOpenApiDocument } from '../common/http/openapi';
import { SESSION_COOKIE } from './admin-session';
import { SAFE_METHODS } from './admin-session';
import { NO_SESSION_EXTENSION, ROLE_EXTENSION, ROLE_SCOPE_EXTENSION } from './admin.guard';

export const ADMIN_OPENAPI_DOCUMENT = 'admin';
export const SESSION_SCHEME = 'session';
export const CSRF_SCHEME = 'csrf';
const CSRF_HEADER_NAME = 'X-CSRF-Token';

const DESCRIPTION = `
The operator dashboard's own API (docs/operations.md "Operator dashboard"), called by the page at
/admin from the same origin. It is built from AdminController and checked in as
clients/admin/openapi.json, from which the dashboard's types are generated
(\`npm run openapi:admin\`); it is not served.

No bearer token: \`POST /admin/api/session\` with \`Authorization: Basic\` (an operator's e-mail and
password, or the bootstrap ADMIN_USER and ADMIN_PASSWORD) sets the session cookie (HttpOnly,
SameSite=Strict, 12 hours, revocable), and every POST, PUT and DELETE of a session sends back its
\`csrf_token\` in \`X-CSRF-Token\`. Each route needs a role (\`x-role\`: viewer, editor or owner) on
its app, on every app, or (\`x-role-scope: some-app\`) on one app (docs/api.md#273-roles). Answers use the public API's conventions (\`{"data": ...}\`, every
field present, ISO 8601 UTC timestamps, \`{"message": ...}\` errors); every route answers 404 while
ADMIN_USER and ADMIN_PASSWORD are unset.
`.trim();

export function buildAdminOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Push Notification Service: operator dashboard')
    .setDescription(DESCRIPTION)
    .setVersion('v1')
    .addCookieAuth(
      SESSION_COOKIE,
      { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'The session cookie `POST /admin/api/session` sets.' },
      SESSION_SCHEME,
    )
    .addApiKey({ type: 'apiKey', in: 'header', name: CSRF_HEADER_NAME, description: "The session's `csrf_token`." }, CSRF_SCHEME)
    .build();
  return describeSessionGuard(scanOpenApiDocument(app, config, ADMIN_OPENAPI_DOCUMENT));
}

type Operation = {
  security?: Record<string, string[]>[];
  parameters?: { name: string }[];
  responses: Record<string, { description: string; content?: unknown }>;
} & Record<string, unknown>;

/** What AdminGuard answers on every operation: 404 while off, 401 without a session, 403 without its CSRF token. */
export function describeSessionGuard(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const [method, value] of Object.entries(item)) {
      if (typeof value !== 'object' || value === null || !('responses' in value)) continue;
      const operation = value as Operation;
      const { responses } = operation;
      const off = 'the dashboard is off (ADMIN_USER and ADMIN_PASSWORD are unset).';
      const notFound = responses['404']?.description.replace(/\.$/, '');
      responses['404'] = { description: notFound ? `${notFound}, or ${off}` : `T${off.slice(1)}`, content: errorContent('Not Found') };
      if (operation[NO_SESSION_EXTENSION]) {
        delete operation[NO_SESSION_EXTENSION];
      } else {
        const safe = SAFE_METHODS.has(method.toUpperCase());
        operation.security = [safe ? { [SESSION_SCHEME]: [] } : { [SESSION_SCHEME]: [], [CSRF_SCHEME]: [] }];
        responses['401'] = {
          description: 'No valid session cookie (logged out, expired, or the credentials changed).',
          content: errorContent('Unauthenticated.'),
        };
        const role = operation[ROLE_EXTENSION] as string;
        const scope = operation[ROLE_SCOPE_EXTENSION]
          ? 'on at least one app'
          : operation.parameters?.some((p) => p.name === 'app')
            ? 'on this app'
            : 'on every app';
        const noRole = `The operator is not at least ${role} ${scope} (docs/api.md#273-roles)`;
        responses['403'] = {
          description: safe
            ? `${noRole}.`
            : `No \`${CSRF_HEADER_NAME}\` header with the session's CSRF token, or: ${noRole.charAt(0).toLowerCase()}${noRole.slice(1)}.`,
          content: errorContent('This action is unauthorized.'),
        };
      }
      responses['500'] = {
        description: 'Anything unexpected; the details are only in the log, under the `X-Error-Id` header.',
        content: errorContent('Server Error.'),
      };
    }
  }
  return document;
}

/** clients/admin/openapi.json's text; Nest's preview mode builds it without a database or Redis. */
export const adminOpenApiText = (app: INestApplication): string => `${JSON.stringify(buildAdminOpenApiDocument(app), null, 2)}\n`;
