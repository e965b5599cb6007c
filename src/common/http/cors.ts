import type { INestApplication } from '@nestjs/common';
import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';
import type { Request } from 'express';

export const CORS_ORIGIN = /^https?:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

export function parseCorsOrigins(value: string | undefined): '*' | Set<string> {
  if (value?.trim() === '*') return '*';
  return new Set(
    (value ?? '')
      .split(',')
      .map((origin) => origin.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** Pages on `CORS_ALLOWED_ORIGINS` may call `/api/` (docs/api.md#tokens), with no credentials mode: tokens never travel as cookies. */
export function enableApiCors(app: INestApplication, allowed: string | undefined): void {
  const origins = parseCorsOrigins(allowed);
  if (origins !== '*' && origins.size === 0) return;
  const options: CorsOptions = {
    origin: origins === '*' ? '*' : (origin, done) => done(null, origin !== undefined && origins.has(origin.toLowerCase())),
    methods: ['GET', 'PUT', 'PATCH', 'POST', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id', 'X-User-Id-Hash', 'Last-Event-ID'],
    exposedHeaders: ['Retry-After', 'X-Request-Id', 'X-Error-Id', 'Idempotent-Replayed', 'WWW-Authenticate'],
    credentials: false,
    // Chromium caps a cached preflight at 2 hours.
    maxAge: 600,
    optionsSuccessStatus: 204,
  };
  app.enableCors((req: Request, done: (error: Error | null, options: CorsOptions) => void) =>
    done(null, req.path.startsWith('/api/') ? options : { origin: false }),
  );
}
