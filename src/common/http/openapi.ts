import { INestApplication, SetMetadata, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ABILITIES_EXTENSION, BEARER_SCHEME } from '../openapi-names';
import { CLASS_SCHEMAS } from '../validation/framework';
import { WEB_PUSH_ENDPOINT_EXTENSION } from '../validation/domain-rules';
import { MAX_NESTING } from '../validation/validation-errors';
import { ErrorResponse, ValidationErrorResponse } from './api-responses';
import { WebPushHosts } from '../web-push-hosts';

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

/** The pattern a Web Push endpoint matches (the configured allow-list's); read only when a schema has one. */
export type EndpointPattern = () => string;

/** The OpenAPI document of every route the app serves, built from the controllers' decorators. */
export function buildOpenApiDocument(app: INestApplication, webPushEndpoint: EndpointPattern): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Push Notification Service')
    .setDescription(DESCRIPTION)
    .setVersion('v1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'pns_<43 base62 characters>', description: 'An API token of your app.' }, BEARER_SCHEME)
    .build();
  return describeAbilities(scanOpenApiDocument(app, config, null, webPushEndpoint));
}

const DOCUMENT_METADATA = 'pns:openapi-document';

/** Puts a controller in an OpenAPI document of its own (the dashboard's: admin/admin-openapi.ts), not the public one. */
export const InOpenApiDocument = (name: string): ClassDecorator => SetMetadata(DOCUMENT_METADATA, name);

/** The modules whose controllers `name` describes (null: the public one); a module split over two documents is refused. */
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

/** The OpenAPI document of one set of controllers (see InOpenApiDocument), with what the decorators cannot say. */
export function scanOpenApiDocument(
  app: INestApplication,
  config: Omit<OpenAPIObject, 'paths'>,
  name: string | null,
  webPushEndpoint?: EndpointPattern,
): OpenAPIObject {
  const document = SwaggerModule.createDocument(app, config, {
    include: modulesOfDocument(app, name),
    extraModels: [ErrorResponse, ValidationErrorResponse],
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  return describeHttpErrors(describeSchemas(document, webPushEndpoint));
}

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema };

/** Closed objects (unknown keys refused, as the pipe and the mappers do) and the Web Push endpoint's allow-list pattern. */
export function describeSchemas(document: OpenAPIObject, webPushEndpoint?: EndpointPattern): OpenAPIObject {
  let endpointPattern: string | undefined;
  const visit = (schema: Schema | undefined) => {
    if (!schema || typeof schema !== 'object') return;
    if (schema[WEB_PUSH_ENDPOINT_EXTENSION]) {
      delete schema[WEB_PUSH_ENDPOINT_EXTENSION];
      if (!webPushEndpoint) throw new Error('This OpenAPI document has a Web Push endpoint: give it the allow-list pattern');
      schema.pattern = endpointPattern ??= webPushEndpoint();
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

/** An error answer's content: the ErrorResponse schema, with each message as an example. */
export const errorContent = (...messages: string[]) => ({
  'application/json': {
    schema: { $ref: '#/components/schemas/ErrorResponse' },
    ...(messages.length === 1
      ? { example: { message: messages[0] } }
      : { examples: Object.fromEntries(messages.map((message) => [message.replace(/\W+/g, '_').replace(/^_|_$/g, ''), { value: { message } }])) }),
  },
});

/** The HTTP layer's answers on every operation: 400 (Node's parser, bad percent-encoding; a JSON route keeps its own too), 431, 408. */
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

/** Writes each operation's required abilities (from RequireAbilities) at the top of its description. */
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

/** Swagger UI at /docs and the JSON at /docs-json, both public; from configureHttpApp, so tests serve the same document. */
export function setupOpenApi(app: INestApplication, webPushEndpoint: EndpointPattern): OpenAPIObject {
  const document = buildOpenApiDocument(app, webPushEndpoint);
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

/** clients/node/openapi.json's text: the served document with the default Web Push allow-list (Nest's preview mode builds it). */
export const publicOpenApiText = (app: INestApplication): string =>
  `${JSON.stringify(
    buildOpenApiDocument(app, () => WebPushHosts.fromSetting(undefined).endpointPattern()),
    null,
    2,
  )}\n`;
