import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ABILITIES_EXTENSION, BEARER_SCHEME } from '../openapi-names';
import { ErrorResponse, ValidationErrorResponse } from './api-responses';

export const DOCS_PATH = 'docs';
export const DOCS_JSON_PATH = 'docs-json';

const DESCRIPTION = `
Keeps each installation of your app current (its user, push permission and device token) and sends
notifications to lists of your users through APNs, FCM and Web Push.

**Try it:** create a token (\`npm run cli -- tokens:create --app <APP_ID> --abilities '*'\`), press
**Authorize**, paste the token (\`pns_...\`), then use *Try it out* on \`POST /api/v1/notifications\`.

Conventions: JSON bodies; success bodies are \`{"data": ...}\`; every field is present, unset ones are
\`null\`; timestamps are ISO 8601 UTC with milliseconds. Errors are \`{"message": "..."}\` (validation
failures add \`errors\`, keyed by dotted request paths). Every response carries \`X-Request-Id\` (yours,
when you send one), which is on every log line of the request. Each token may make
RATE_LIMIT_PER_MINUTE requests a minute (6000 unless configured); past that, 429 with \`Retry-After\`.
`.trim();

/** The OpenAPI document of every route the app serves, built from the controllers' decorators. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Push Notification Service')
    .setDescription(DESCRIPTION)
    .setVersion('v1')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'pns_<43 base62 characters>', description: 'An API token of your app.' },
      BEARER_SCHEME,
    )
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: [ErrorResponse, ValidationErrorResponse],
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  return describeAbilities(document);
}

/** Writes each operation's required abilities (from RequireAbilities) at the top of its description. */
export function describeAbilities(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || operation === null || !(ABILITIES_EXTENSION in operation)) continue;
      const abilities = (operation as Record<string, unknown>)[ABILITIES_EXTENSION] as string[];
      const line = `**Ability:** ${abilities.map((ability) => `\`${ability}\``).join(', ')} (or \`*\`).`;
      const op = operation as { description?: string };
      op.description = op.description ? `${line}\n\n${op.description}` : line;
    }
  }
  return document;
}

/**
 * Swagger UI at /docs and the JSON document at /docs-json, both public. Called from
 * configureHttpApp, so tests and production serve the same document.
 */
export function setupOpenApi(app: INestApplication): OpenAPIObject {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup(DOCS_PATH, app, document, {
    jsonDocumentUrl: DOCS_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'Push Notification Service API',
    swaggerOptions: {
      // A token pasted into "Authorize" survives a page reload.
      persistAuthorization: true,
      displayRequestDuration: true,
      tryItOutEnabled: true,
    },
  });
  return document;
}
