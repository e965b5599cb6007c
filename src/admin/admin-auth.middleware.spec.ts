import type { NextFunction, Request, Response } from 'express';
import { adminQueuesDoor, queuesPage } from './admin-auth.middleware';
import { adminCredentialsMatch, type AdminSessionsService } from './admin-sessions.service';

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

describe('adminCredentialsMatch', () => {
  it('matches the right user and password (the password may contain colons)', () => {
    expect(adminCredentialsMatch(basic('ops:pass:with:colons'), 'ops', 'pass:with:colons')).toBe(true);
  });

  it.each([undefined, basic('ops:pass'), basic('other:pass:with:colons'), basic('no-colon'), 'Bearer pns_x', 'Basic'])('refuses %p', (authorization) => {
    expect(adminCredentialsMatch(authorization, 'ops', 'pass:with:colons')).toBe(false);
  });
});

describe('adminQueuesDoor', () => {
  const run = (enabled: boolean, session: { csrf: string } | null, method = 'GET', headers: Record<string, string> = {}) => {
    const res = {
      statusCode: 200,
      headers: {} as Record<string, string>,
      body: undefined as unknown,
      status(code: number) {
        this.statusCode = code;
        return this;
      },
      json(body: unknown) {
        this.body = body;
        return this;
      },
      setHeader(name: string, value: string) {
        this.headers[name.toLowerCase()] = value;
        return this;
      },
      send: jest.fn(),
    };
    const next = jest.fn();
    const sessions = { enabled, sessionOf: () => session } as unknown as AdminSessionsService;
    const req = { method, path: '/api/queues', headers, header: (name: string) => headers[name.toLowerCase()], accepts: () => 'json' };
    adminQueuesDoor(sessions)(req as unknown as Request, res as unknown as Response, next as NextFunction);
    return { res, next };
  };

  it('is off (404) without the dashboard, 401 without a session, 403 for a change without the CSRF token', () => {
    expect(run(false, { csrf: 't' }).res.statusCode).toBe(404);
    expect(run(true, null, 'GET', { authorization: basic('ops:pass') }).res).toMatchObject({ statusCode: 401, body: { message: 'Unauthenticated.' } });
    expect(run(true, { csrf: 't' }, 'PUT').res.statusCode).toBe(403);
    expect(run(true, { csrf: 't' }, 'POST', { 'x-csrf-token': 'other' }).res.statusCode).toBe(403);
  });

  it('lets a session through, with the CSRF token for a change, under a same-origin CSP', () => {
    const read = run(true, { csrf: 't' });
    expect(read.next).toHaveBeenCalled();
    expect(read.res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(read.res.headers['x-frame-options']).toBe('DENY');
    expect(run(true, { csrf: 't' }, 'PUT', { 'x-csrf-token': 't' }).next).toHaveBeenCalled();
  });
});

describe('queuesPage', () => {
  it('drops stylesheets from other hosts and adds the CSRF token and its script', () => {
    const html =
      '<!DOCTYPE html><html><head><link href="https://fonts.googleapis.com/css2?family=X" rel="stylesheet">\n<link href="static/css/main.css" rel="stylesheet"></head></html>';
    const page = queuesPage(html, 'tok');
    expect(page).not.toContain('googleapis');
    expect(page).toContain('static/css/main.css');
    expect(page).toContain('<meta name="csrf-token" content="tok"><script src="/admin/queues/pns-csrf.js"></script></head>');
  });
});
