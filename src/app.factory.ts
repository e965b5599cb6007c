import type { Server } from 'node:http';
import { INestApplication, LoggerService, Type } from '@nestjs/common';
import type { Express } from 'express';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';
import { ADMIN_BODIES_WITHOUT_SESSION, AdminSessionsService } from './admin/admin-sessions.service';
import { authenticateRequest } from './auth/request-authentication';
import { answerClientErrors } from './common/http/client-errors';
import { enableApiCors } from './common/http/cors';
import { deferredJsonBody } from './common/http/json-body';
import { setupOpenApi } from './common/http/openapi';
import { WebPushHosts } from './common/web-push-hosts';
import { httpMetrics } from './metrics/http-metrics.middleware';
import { MetricsService } from './metrics/metrics.service';
import { EnvironmentVariables } from './config/env';

/** HTTP setup that is no module's: metrics timing, CORS, slow-client timeouts, the JSON body parser, OpenAPI; main.ts and tests share it. */
export function configureHttpApp(app: INestApplication): INestApplication {
  const express = app.getHttpAdapter().getInstance() as Express;
  express.disable('x-powered-by');
  express.set('trust proxy', true);
  // First, so every request is timed, including those refused before any route runs.
  app.use(httpMetrics(app.get(MetricsService, { strict: false })));
  // Before the body parser and the guard: a preflight carries no token (docs/api.md#tokens).
  const config = app.get(EnvironmentVariables, { strict: false });
  enableApiCors(app, config.CORS_ALLOWED_ORIGINS);
  const admin = optional(() => app.get(AdminSessionsService, { strict: false }));
  // An invitation's token, in its body, is its own proof (docs/api.md#271-operators).
  const adminBody = async (req: { path: string; headers: Record<string, unknown> }) =>
    admin !== null && req.path.startsWith('/admin/api/') && (ADMIN_BODIES_WITHOUT_SESSION.includes(req.path) || (await admin.sessionOf(req as never)) !== null);
  app.use(deferredJsonBody(async (req, res) => (await adminBody(req)) || (await authenticateRequest(req, res)) !== null));
  setupOpenApi(app, () => WebPushHosts.fromSetting(config.WEB_PUSH_ALLOWED_HOSTS).endpointPattern());
  limitSlowClients(app.getHttpServer() as Server, config);
  answerClientErrors(app.getHttpServer() as Server);
  return app;
}

/** 408 past HTTP_HEADERS_TIMEOUT_MS or HTTP_REQUEST_TIMEOUT_MS, checked every quarter of the shorter (Node's default: 30 s). */
function limitSlowClients(server: Server, config: Pick<EnvironmentVariables, 'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_REQUEST_TIMEOUT_MS'>): void {
  server.requestTimeout = config.HTTP_REQUEST_TIMEOUT_MS;
  server.headersTimeout = Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS);
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(30000, Math.ceil(server.headersTimeout / 4));
}

function optional<T>(get: () => T): T | null {
  try {
    return get();
  } catch {
    return null;
  }
}

/** Without a logger, Nest logs through LoggingModule's pino, its start-up lines buffered until then. */
export async function createHttpApp(module: Type, logger?: LoggerService | false): Promise<INestApplication> {
  const app = await NestFactory.create(module, { bodyParser: false, ...(logger === undefined ? { bufferLogs: true } : { logger }) });
  if (logger === undefined) app.useLogger(app.get(PinoLogger));
  return configureHttpApp(app);
}
