import type { INestApplication } from '@nestjs/common';
import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';
import type { Request } from 'express';

/** One origin as a browser sends it: scheme, host and an optional port, nothing after. */
export const CORS_ORIGIN = /^https?:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** `*`, or origins separated by commas; lower-cased, as browsers serialize them. */
export function parseCorsOrigins(value: string | undefined): '*' | Set<string> {
  if (value?.trim() === '*') return '*';
  return new Set(
    (value ?? '')
      .split(',')
      .map((origin) => origin.trim().toLowerCase())
      .filter(Boolean),
  );
}

/**
 * Lets web pages on `CORS_ALLOWED_ORIGINS` call the API from the browser (the web SDK,
 * docs/api.md#tokens), on `/api/` routes only. Tokens travel in the Authorization header and never
 * as cookies, so no credentials mode is allowed: a page can do nothing a holder of its token could
 * not do from anywhere. An origin not listed gets no CORS headers (its preflight is a 404, as
 * before), so the browser keeps the page from reading any answer.
 */
export function enableApiCors(app: INestApplication, allowed: string | undefined): void {
  const origins = parseCorsOrigins(allowed);
  if (origins !== '*' && origins.size === 0) return;
  const options: CorsOptions = {
    origin: origins === '*' ? '*' : (origin, done) => done(null, origin !== undefined && origins.has(origin.toLowerCase())),
    methods: ['GET', 'PUT', 'PATCH', 'POST', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: ['Retry-After', 'X-Request-Id', 'X-Error-Id', 'Idempotent-Replayed', 'WWW-Authenticate'],
    credentials: false,
    // Browsers cache a preflight this long (Chromium caps it at 2 hours).
    maxAge: 600,
    optionsSuccessStatus: 204,
  };
  app.enableCors((req: Request, done: (error: Error | null, options: CorsOptions) => void) =>
    done(null, req.path.startsWith('/api/') ? options : { origin: false }),
  );
}
