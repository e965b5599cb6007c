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
 * request. RequestBodyInterceptor raises them after the guard, so authentication is checked
 * first, as docs/api.md 2 orders it.
 */
export function deferredJsonBody(): RequestHandler {
  const parse = json({ limit: BODY_LIMIT_BYTES, strict: true, type: (req) => isJsonContentType(req.headers['content-type']) });
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (error?: unknown) => {
      if (error) (req as RequestWithBodyError).bodyError = error as RequestWithBodyError['bodyError'];
      next();
    });
}
