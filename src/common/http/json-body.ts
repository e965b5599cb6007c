import { json } from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** application/json or any application/...+json media type. */
export function isJsonContentType(header: string | undefined): boolean {
  const media = (header ?? '').split(';')[0].trim().toLowerCase();
  return media === 'application/json' || /^application\/[a-z0-9.!#$%&'*^_`{|}~-]+\+json$/.test(media);
}

/** True when the request carries bytes (a zero Content-Length counts as no body). */
export function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

export interface RequestWithBodyError extends Request {
  bodyError?: { type?: string; status?: number };
}

/**
 * JSON body parsing whose failures (malformed, too large, bad charset) are only recorded on the
 * request. RequestBodyGuard raises them after the other guards, so authentication is checked
 * first, as docs/api.md#errors orders it. A body is read only when `authenticated` says the caller is
 * known: anonymous requests are answered (401, or 404 for an unknown route) without parsing
 * their body, so they cost next to nothing however large or deeply nested it is.
 */
export function deferredJsonBody(authenticated: (req: Request, res: Response) => Promise<boolean>): RequestHandler {
  const parse = json({ limit: BODY_LIMIT_BYTES, strict: true, type: (req) => isJsonContentType(req.headers['content-type']) });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    authenticated(req, res).then(
      (known) => {
        if (!known) return next();
        parse(req, res, (error?: unknown) => {
          if (error) (req as RequestWithBodyError).bodyError = error as RequestWithBodyError['bodyError'];
          next();
        });
      },
      // A failed lookup (PostgreSQL down) fails again in the guard, answered as a 503 by AllExceptionsFilter.
      () => next(),
    );
  };
}
