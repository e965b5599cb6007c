import { text } from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export function isJsonContentType(header: string | undefined): boolean {
  const media = (header ?? '').split(';')[0].trim().toLowerCase();
  return media === 'application/json' || /^application\/[a-z0-9.!#$%&'*^_`{|}~-]+\+json$/.test(media);
}

/** A zero Content-Length counts as no body. */
export function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

export interface RequestWithBodyError extends Request {
  bodyError?: { type?: string; status?: number };
}

export const LARGE_BODY_BYTES = 64 * 1024;

/** As body-parser's strict mode: an object or an array; empty is `{}`. */
export function parseStrictJson(body: string): unknown {
  if (body.length === 0) return {};
  const first = /^[ \t\n\r]*(.?)/.exec(body)![1];
  if (first !== '{' && first !== '[') throw new SyntaxError('A JSON body must be an object or an array.');
  return JSON.parse(body);
}

const waiting: (() => void)[] = [];
let draining = false;

/** Runs one large body's JSON.parse per event-loop turn, so fifty 1 MiB bodies do not starve a health check. */
export function parseInTurn(task: () => void): void {
  waiting.push(task);
  if (!draining) drain();
}

function drain(): void {
  const task = waiting.shift();
  draining = task !== undefined;
  if (!task) return;
  task();
  setImmediate(drain);
}

function charsetOf(req: Request): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.headers['content-type'] ?? '')?.[1].toLowerCase();
}

/**
 * JSON parsing whose failures are only recorded, for RequestBodyGuard to raise after authentication (docs/api.md#errors);
 * an anonymous request's body is never read.
 */
export function deferredJsonBody(authenticated: (req: Request, res: Response) => Promise<boolean>): RequestHandler {
  const read = text({ limit: BODY_LIMIT_BYTES, defaultCharset: 'utf-8', type: (req) => isJsonContentType(req.headers['content-type']) });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    authenticated(req, res).then(
      (known) => {
        if (!known) return next();
        const charset = charsetOf(req);
        if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
          (req as RequestWithBodyError).bodyError = { type: 'charset.unsupported', status: 415 };
          return next();
        }
        read(req, res, (error?: unknown) => {
          if (error) {
            (req as RequestWithBodyError).bodyError = error;
            return next();
          }
          if (typeof req.body !== 'string') return next();
          const body = req.body;
          const parse = () => {
            try {
              req.body = parseStrictJson(body);
            } catch {
              req.body = undefined;
              (req as RequestWithBodyError).bodyError = { type: 'entity.parse.failed', status: 400 };
            }
            next();
          };
          if (body.length < LARGE_BODY_BYTES) parse();
          else parseInTurn(parse);
        });
      },
      // A failed lookup (PostgreSQL down) fails again in the guard, as a 503.
      () => next(),
    );
  };
}
