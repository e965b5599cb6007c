import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { MetricsService } from './metrics.service';

export const UNMATCHED_ROUTE = 'unmatched';

/** Times every request by the route pattern matched (bounded series), mounted first so refused requests count too. */
export function httpMetrics(metrics: MetricsService): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const stop = metrics.httpDuration.startTimer();
    res.once('finish', () => {
      stop({ method: req.method, route: routeLabel(req), status: String(res.statusCode) });
    });
    next();
  };
}

function routeLabel(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && !path.includes('*') ? path : UNMATCHED_ROUTE;
}
