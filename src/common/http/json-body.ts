import { text } from 'express';
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

/** Bodies from this size on are parsed one per turn of the event loop (see parseInTurn). */
export const LARGE_BODY_BYTES = 64 * 1024;

/** JSON text as body-parser's strict mode takes it: an object or an array; empty is `{}`. */
export function parseStrictJson(body: string): unknown {
  if (body.length === 0) return {};
  const first = /^[ \t\n\r]*(.?)/.exec(body)![1];
  if (first !== '{' && first !== '[') throw new SyntaxError('A JSON body must be an object or an array.');
  return JSON.parse(body);
}

const waiting: (() => void)[] = [];
let draining = false;

/**
 * Runs `task` (one large body's JSON.parse) after the ones queued before it, each in a turn of the
 * event loop of its own. Fifty 1 MiB bodies that arrive together would otherwise be parsed back to
 * back, and every other request (a health check) would wait for all of them.
 */
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

/** The charset parameter of the Content-Type, lower case, or undefined. */
function charsetOf(req: Request): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.headers['content-type'] ?? '')?.[1].toLowerCase();
}

/**
 * JSON body parsing whose failures (malformed, too large, bad charset) are only recorded on the
 * request. RequestBodyGuard raises them after the other guards, so authentication is checked
 * first, as docs/api.md#errors orders it. A body is read only when `authenticated` says the caller is
 * known: anonymous requests are answered (401, or 404 for an unknown route) without parsing
 * their body, so they cost next to nothing however large or deeply nested it is. body-parser reads
 * and decodes the text (limit, Content-Encoding, charset); large bodies are parsed in turn.
 */
export function deferredJsonBody(authenticated: (req: Request, res: Response) => Promise<boolean>): RequestHandler {
  const read = text({ limit: BODY_LIMIT_BYTES, defaultCharset: 'utf-8', type: (req) => isJsonContentType(req.headers['content-type']) });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    authenticated(req, res).then(
      (known) => {
        if (!known) return next();
        const charset = charsetOf(req);
        // RFC 8259 section 8.1: JSON exchanged between systems is UTF-8.
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
      // A failed lookup (PostgreSQL down) fails again in the guard, answered as a 503 by AllExceptionsFilter.
      () => next(),
    );
  };
}
