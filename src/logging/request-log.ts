import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction } from 'express';
import { PinoLogger } from 'nestjs-pino';
import type { AuthContext } from '../auth/auth-context';
import { requestId } from './log-options';

type AuthenticatedRequest = IncomingMessage & { user?: AuthContext };

/** Probes hit these every few seconds; their lines would drown everything else. */
const isProbe = (req: IncomingMessage) => (req.url ?? '').startsWith('/health/');

function callerOf(req: IncomingMessage): { token_id?: string; app_id?: string } {
  const user = (req as AuthenticatedRequest).user;
  return user ? { token_id: user.tokenId, app_id: user.appId } : {};
}

/**
 * One line per HTTP request (docs/operations.md "Logs") with pino-http's fields, and a context whose
 * lines all carry its `request_id`; one child logger per request, not pino-http's two (bench/HISTORY.md).
 */
export function requestLog(context: PinoLogger) {
  return (req: IncomingMessage, res: ServerResponse, next: NextFunction): void => {
    const id = requestId(req, res);
    (req as IncomingMessage & { id: string }).id = id;
    if (!isProbe(req)) {
      const startedAt = Date.now();
      // 'close' alone when the client went away before the response was finished.
      const done = () => {
        res.removeListener('finish', done);
        res.removeListener('close', done);
        const line = { request_id: id, req, res, responseTime: Date.now() - startedAt, ...callerOf(req) };
        if (res.statusCode >= 500) PinoLogger.root.error({ ...line, err: new Error(`failed with status code ${res.statusCode}`) }, 'request errored');
        else PinoLogger.root.info(line, 'request completed');
      };
      res.on('finish', done);
      res.on('close', done);
    }
    context.runInContext(next, { bindings: { request_id: id } });
  };
}
