import { INestApplication, SetMetadata, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ABILITIES_EXTENSION, BEARER_SCHEME } from '../openapi-names';
import { CLASS_SCHEMAS } from '../validation/framework';
import { webPushHosts, WEB_PUSH_ENDPOINT_EXTENSION } from '../validation/domain-rules';
import { MAX_NESTING } from '../validation/validation-errors';
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
failures add \`errors\`, keyed by dotted request paths). Request schemas are the validation rules
themselves; besides them, no string or key may hold NUL or an unpaired UTF-16 surrogate, and values
nest at most ${MAX_NESTING} levels (422 at the field). Every response carries \`X-Request-Id\` (yours,
when you send one), which is on every log line of the request. Each token may make
RATE_LIMIT_PER_MINUTE requests a minute (6000 unless configured); past that, 429 with \`Retry-After\`.
`.trim();

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Push Notification Service')
    .setDescription(DESCRIPTION)
    .setVersion('v1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'pns_<43 base62 characters>', description: 'An API token of your app.' }, BEARER_SCHEME)
    .build();
  return describeAbilities(scanOpenApiDocument(app, config, null));
}

const DOCUMENT_METADATA = 'pns:openapi-document';

/** Puts a controller in a document of its own instead of the public one (admin/admin-openapi.ts). */
export const InOpenApiDocument = (name: string): ClassDecorator => SetMetadata(DOCUMENT_METADATA, name);

/** The modules of document `name` (null: public); the scanner takes whole modules, so a split module is refused. */
export function modulesOfDocument(app: INestApplication, name: string | null): Type[] {
  const modules: Type[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    const documents = new Set(
      [...module.controllers.values()].map(({ metatype }) => (Reflect.getMetadata(DOCUMENT_METADATA, metatype!) as string | undefined) ?? null),
    );
    if (documents.size > 1) throw new Error(`${module.metatype.name} has controllers of several OpenAPI documents`);
    if (documents.has(name)) modules.push(module.metatype);
  }
  // An empty list would make the scanner take every module.
  if (!modules.length) throw new Error(`No controller is described in the ${name ?? 'public'} OpenAPI document`);
  return modules;
}

/** One document (see InOpenApiDocument), with closed objects and the HTTP layer's own answers. */
export function scanOpenApiDocument(app: INestApplication, config: Omit<OpenAPIObject, 'paths'>, name: string | null): OpenAPIObject {
  const document = SwaggerModule.createDocument(app, config, {
    include: modulesOfDocument(app, name),
    extraModels: [ErrorResponse, ValidationErrorResponse],
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  return describeHttpErrors(describeSchemas(document));
}

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema };

/** Every documented object refuses unknown keys, and a Web Push endpoint matches the configured allow-list. */
export function describeSchemas(document: OpenAPIObject): OpenAPIObject {
  let endpointPattern: string | undefined;
  const visit = (schema: Schema | undefined) => {
    if (!schema || typeof schema !== 'object') return;
    if (schema[WEB_PUSH_ENDPOINT_EXTENSION]) {
      delete schema[WEB_PUSH_ENDPOINT_EXTENSION];
      schema.pattern = endpointPattern ??= webPushHosts().endpointPattern();
    }
    if (schema.properties) {
      schema.additionalProperties ??= false;
      Object.values(schema.properties).forEach(visit);
    }
    visit(schema.items);
  };
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    visit(schema as Schema);
    Object.assign(schema, CLASS_SCHEMAS.get(name));
  }
  return document;
}

export const errorContent = (...messages: string[]) => ({
  'application/json': {
    schema: { $ref: '#/components/schemas/ErrorResponse' },
    ...(messages.length === 1
      ? { example: { message: messages[0] } }
      : { examples: Object.fromEntries(messages.map((message) => [message.replace(/\W+/g, '_').replace(/^_|_$/g, ''), { value: { message } }])) }),
  },
});

/** The answers Node gives before any route, on every operation: 400, 408 and 431 (16 KiB of headers). */
export function describeHttpErrors(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      const responses = (operation as { responses: Record<string, { description: string; content?: unknown }> }).responses;
      responses['400'] = responses['400']
        ? {
            description: `${responses['400'].description} Also: a path with broken percent-encoding, or a request Node's HTTP parser rejects.`,
            content: errorContent('Malformed JSON body.', 'Bad Request.'),
          }
        : { description: "A path with broken percent-encoding, or a request Node's HTTP parser rejects.", content: errorContent('Bad Request.') };
      responses['431'] = {
        description: 'The request line and headers are over 16 KiB (a very long URL included).',
        content: errorContent('Request Header Fields Too Large.'),
      };
      responses['408'] = {
        description: "The request did not arrive whole within Node's request timeout (300 s).",
        content: errorContent('Request Timeout.'),
      };
    }
  }
  return document;
}

export function describeAbilities(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || operation === null || !(ABILITIES_EXTENSION in operation)) continue;
      const abilities = (operation as Record<string, unknown>)[ABILITIES_EXTENSION] as string[];
      const line = abilities.length
        ? `**Ability:** ${abilities.map((ability) => `\`${ability}\``).join(', ')} (or \`*\`).`
        : '**Ability:** any (every valid token of the app).';
      const op = operation as { description?: string };
      op.description = op.description ? `${line}\n\n${op.description}` : line;
    }
  }
  return document;
}

/** Swagger UI at /docs and JSON at /docs-json, public; tests and production serve the same. */
export function setupOpenApi(app: INestApplication): OpenAPIObject {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup(DOCS_PATH, app, document, {
    jsonDocumentUrl: DOCS_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'Push Notification Service API',
    swaggerOptions: {
      persistAuthorization: true,
      displayRequestDuration: true,
      tryItOutEnabled: true,
    },
  });
  return document;
}
