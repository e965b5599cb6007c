import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { MetricsService } from './metrics.service';

/** Label of requests that matched no route (unknown paths, the queue dashboard's own router). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every HTTP request into pns_http_request_duration_seconds. The `route` label is the
 * route pattern Express matched (`/api/v1/installations/:installationId`), never the raw URL,
 * so the number of series stays bounded whatever clients send. Mounted first (app.factory.ts),
 * so requests refused by a guard, a body error or a 404 are measured too.
 */
export function httpMetrics(metrics: MetricsService): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const stop = metrics.httpDuration.startTimer();
    res.once('finish', () => {
      stop({ method: req.method, route: routeLabel(req), status: String(res.statusCode) });
    });
    next();
  };
}

/**
 * The matched route's pattern. Nest mounts module middleware (request logging, the dashboard) as
 * wildcard routes such as `{/*splat}`; when one of those is the last thing Express matched, no
 * real route was, and the request counts as unmatched.
 */
function routeLabel(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && !path.includes('*') ? path : UNMATCHED_ROUTE;
}
