import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** dist/admin, beside dist/src in a build, under dist/ from the sources. */
export function adminPagesDir(): string | null {
  const candidates = [resolve(__dirname, '../../admin'), resolve(__dirname, '../../dist/admin')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}

/** Everything from this origin, so a dependency that reached for a CDN fails loudly in the e2e test. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // Chart.js and React set element styles at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** bull-board's page resolves its scripts against its `<base href>` (its own route): the same policy, that base allowed. */
export const QUEUES_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace("base-uri 'none'", "base-uri 'self'");

export function adminApiNoStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  next();
}

/** The dashboard's app at /admin: hashed assets cached for good, other paths get index.html, never cached. */
export function adminPages(enabled: boolean, dir: string | null): RequestHandler {
  const assets = dir ? express.static(dir, { index: false, immutable: true, maxAge: '365d', fallthrough: true }) : null;
  return (req: Request, res: Response, next: NextFunction) => {
    const path = req.originalUrl.split('?')[0];
    if (!/^\/admin(\/|$)/.test(path) || /^\/admin\/(api|queues)(\/|$)/.test(path)) return next();
    if (!enabled || !dir || !assets || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.status(404).json({ message: 'Not Found' });
      return;
    }
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    const relative = path.slice('/admin'.length) || '/';
    if (relative.startsWith('/assets/')) {
      req.url = relative;
      assets(req, res, () => res.status(404).json({ message: 'Not Found' }));
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(join(dir, 'index.html'));
  };
}
