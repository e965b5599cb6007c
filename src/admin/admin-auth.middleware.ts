import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { QUEUES_CONTENT_SECURITY_POLICY } from './admin-pages.middleware';
import type { AdminSessionsService } from './admin-sessions.service';
import { grantsRole } from '../operators/roles';
import { csrfHeld, SAFE_METHODS } from './admin-session';

export const ADMIN_ROUTE = '/admin/queues';

const QUEUES_FRAME_HEADERS = { 'X-Frame-Options': 'DENY', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin' };

/** Served to the queue dashboard's page: sends the session's CSRF token with every state-changing XMLHttpRequest. */
export const QUEUES_CSRF_SCRIPT = `(() => {
  const token = document.querySelector('meta[name="csrf-token"]').content;
  const open = XMLHttpRequest.prototype.open;
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, ...rest) {
    this.pnsMethod = String(method).toUpperCase();
    return open.call(this, method, ...rest);
  };
  XMLHttpRequest.prototype.send = function (body) {
    if (!['GET', 'HEAD', 'OPTIONS'].includes(this.pnsMethod)) this.setRequestHeader('X-CSRF-Token', token);
    return send.call(this, body);
  };
})();
`;
const SCRIPT_PATH = '/pns-csrf.js';

/** bull-board's page, loading nothing from outside (no Google web fonts), with the CSRF token and the script that sends it. */
export function queuesPage(html: string, csrf: string): string {
  return html
    .replace(/<link[^>]+href="https?:\/\/[^"]*"[^>]*>/g, '')
    .replace('</head>', `<meta name="csrf-token" content="${csrf}"><script src="${ADMIN_ROUTE}${SCRIPT_PATH}"></script></head>`);
}

/** The dashboard's door (docs/operations.md "Operator dashboard"): 404 off, 401 no session, 403 no X-CSRF-Token on a change or no role; CSP, no framing. */
export function adminQueuesDoor(sessions: AdminSessionsService): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    void door(sessions, req, res, next).catch(next);
  };
}

async function door(sessions: AdminSessionsService, req: Request, res: Response, next: NextFunction): Promise<void> {
  if (!sessions.enabled) {
    res.status(404).json({ message: 'Not Found' });
    return;
  }
  const session = await sessions.sessionOf(req);
  if (!session) {
    if (req.method === 'GET' && req.accepts(['json', 'html']) === 'html') res.redirect(303, '/admin');
    else res.status(401).json({ message: 'Unauthenticated.' });
    return;
  }
  // Every app's queues: reading needs a viewer of every app, a change (retry, remove, clean) an owner of every app.
  const role = SAFE_METHODS.has(req.method) ? 'viewer' : 'owner';
  if (!csrfHeld(req, session) || !grantsRole(session.operator.grants, role, null)) {
    res.status(403).json({ message: 'This action is unauthorized.' });
    return;
  }
  res.setHeader('Content-Security-Policy', QUEUES_CONTENT_SECURITY_POLICY);
  for (const [name, value] of Object.entries(QUEUES_FRAME_HEADERS)) res.setHeader(name, value);
  if (req.path === SCRIPT_PATH) {
    res.type('application/javascript').setHeader('Cache-Control', 'no-cache');
    res.send(QUEUES_CSRF_SCRIPT);
    return;
  }
  // bull-board renders its page with res.render, which ends in res.send.
  const send = res.send.bind(res);
  res.send = (body?: unknown) => send(typeof body === 'string' && /^\s*<!DOCTYPE html>/i.test(body) ? queuesPage(body, session.csrf) : body);
  next();
}
