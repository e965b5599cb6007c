import { INestApplication, INestApplicationContext, LoggerService, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';
import { AdminSessionsService } from './admin/admin-sessions.service';
import { authenticateRequest } from './auth/request-authentication';
import { answerClientErrors } from './common/http/client-errors';
import { enableApiCors } from './common/http/cors';
import { deferredJsonBody } from './common/http/json-body';
import { setupOpenApi } from './common/http/openapi';
import { httpMetrics } from './metrics/http-metrics.middleware';
import { MetricsService } from './metrics/metrics.service';
import { EnvironmentVariables } from './config/env';

/**
 * HTTP setup that is not a module concern: request timing for the metrics, CORS for the pages
 * of CORS_ALLOWED_ORIGINS, our own JSON body
 * parser (it reads bodies of authenticated callers only; its errors are raised after the guard)
 * and the OpenAPI document with Swagger UI at /docs. Used by main.ts and by the e2e tests, so both run the same app.
 */
export function configureHttpApp(app: INestApplication): INestApplication {
  const express = app.getHttpAdapter().getInstance();
  express.disable('x-powered-by');
  express.set('trust proxy', true);
  // First, so every request is timed, including those refused before any route runs.
  app.use(httpMetrics(app.get(MetricsService, { strict: false })));
  // Before the body parser and the guard: a preflight carries no token (docs/api.md#tokens).
  enableApiCors(app, app.get(EnvironmentVariables, { strict: false }).CORS_ALLOWED_ORIGINS);
  // The operator dashboard's calls carry its session cookie instead of a token (docs/operations.md).
  const admin = optional(() => app.get(AdminSessionsService, { strict: false }));
  const adminSession = (req: { path: string; headers: Record<string, unknown> }) =>
    admin !== null && req.path.startsWith('/admin/api/') && admin.sessionOf(req as never) !== null;
  app.use(deferredJsonBody(async (req, res) => adminSession(req) || (await authenticateRequest(req, res)) !== null));
  setupOpenApi(app);
  answerClientErrors(app.getHttpServer());
  return app;
}

/** A provider the app may not have (a test app built from a smaller module). */
function optional<T>(get: () => T): T | null {
  try {
    return get();
  } catch {
    return null;
  }
}

/**
 * Without an explicit logger, Nest logs through pino (LoggingModule); lines logged while the
 * app is being built are buffered until then, so even startup lines are JSON.
 */
export async function createHttpApp(module: Type, logger?: LoggerService | false): Promise<INestApplication> {
  const app = await NestFactory.create(module, { bodyParser: false, ...(logger === undefined ? { bufferLogs: true } : { logger }) });
  if (logger === undefined) app.useLogger(app.get(PinoLogger));
  return configureHttpApp(app);
}

export async function createWorkerContext(module: Type, logger?: LoggerService | false): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(module, logger === undefined ? { bufferLogs: true } : { logger });
  if (logger === undefined) app.useLogger(app.get(PinoLogger));
  return app;
}
