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
  const OWNER = [{ app_id: null, role: 'owner' }];
  const run = async (enabled: boolean, session: { csrf: string; grants?: object[] } | null, method = 'GET', headers: Record<string, string> = {}) => {
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
    const sessions = {
      enabled,
      sessionOf: async () => session && { ...session, operator: { grants: session.grants ?? OWNER } },
    } as unknown as AdminSessionsService;
    const req = { method, path: '/api/queues', headers, header: (name: string) => headers[name.toLowerCase()], accepts: () => 'json' };
    const done = new Promise<void>((resolve) => {
      res.json = function (body: unknown) {
        this.body = body;
        resolve();
        return this;
      };
      next.mockImplementation(() => resolve());
    });
    adminQueuesDoor(sessions)(req as unknown as Request, res as unknown as Response, next as NextFunction);
    await done;
    return { res, next };
  };

  it('is off (404) without the dashboard, 401 without a session, 403 for a change without the CSRF token', async () => {
    expect((await run(false, { csrf: 't' })).res.statusCode).toBe(404);
    expect((await run(true, null, 'GET', { authorization: basic('ops:pass') })).res).toMatchObject({ statusCode: 401, body: { message: 'Unauthenticated.' } });
    expect((await run(true, { csrf: 't' }, 'PUT')).res.statusCode).toBe(403);
    expect((await run(true, { csrf: 't' }, 'POST', { 'x-csrf-token': 'other' })).res.statusCode).toBe(403);
  });

  it('lets a session through, with the CSRF token for a change, under a same-origin CSP', async () => {
    const read = await run(true, { csrf: 't' });
    expect(read.next).toHaveBeenCalled();
    expect(read.res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(read.res.headers['x-frame-options']).toBe('DENY');
    expect((await run(true, { csrf: 't' }, 'PUT', { 'x-csrf-token': 't' })).next).toHaveBeenCalled();
  });

  it("shows every app's queues to a viewer of every app, and lets only an owner of every app change them", async () => {
    const viewer = [{ app_id: null, role: 'viewer' }];
    const oneApp = [{ app_id: '00000000-0000-4000-8000-0000000000a1', role: 'owner' }];
    expect((await run(true, { csrf: 't', grants: viewer })).next).toHaveBeenCalled();
    expect((await run(true, { csrf: 't', grants: viewer }, 'PUT', { 'x-csrf-token': 't' })).res.statusCode).toBe(403);
    expect((await run(true, { csrf: 't', grants: oneApp })).res.statusCode).toBe(403);
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
