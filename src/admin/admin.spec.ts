import { ForbiddenException, NotFoundException, UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { adminPages } from './admin-pages.middleware';
import type { OperatorRole } from '../common/vocabulary';
import { AdminGuard, NeedsRole, RoleOnSomeApp } from './admin.guard';
import type { AdminSessionsService } from './admin-sessions.service';
import { toMinutePoints } from './admin.service';

describe('toMinutePoints', () => {
  it('makes one point per minute, retries under "retried", and fills the window with zeros', () => {
    const rows = [
      { minute: new Date('2026-11-24T10:01:00Z'), outcome: 'accepted' as const, count: 1200 },
      { minute: new Date('2026-11-24T10:01:00Z'), outcome: 'pending' as const, count: 3 },
      { minute: new Date('2026-11-24T10:00:00Z'), outcome: 'failed' as const, count: 2 },
    ];
    expect(toMinutePoints(rows)).toEqual([
      { minute: '2026-11-24T10:00:00.000Z', accepted: 0, failed: 2, skipped: 0, retried: 0 },
      { minute: '2026-11-24T10:01:00.000Z', accepted: 1200, failed: 0, skipped: 0, retried: 3 },
    ]);
    const filled = toMinutePoints(rows, { from: new Date('2026-11-24T09:59:00Z'), minutes: 4 });
    expect(filled.map((p) => p.minute.slice(11, 16))).toEqual(['09:59', '10:00', '10:01', '10:02']);
  });
});

describe('AdminGuard', () => {
  const APP = '00000000-0000-4000-8000-0000000000a1';
  const OTHER = '00000000-0000-4000-8000-0000000000a2';
  type Grants = { app_id: string | null; role: OperatorRole }[];
  const OWNER: Grants = [{ app_id: null, role: 'owner' }];
  const context = (
    method: string,
    headers: Record<string, string> = {},
    route: { role?: OperatorRole; someApp?: boolean; app?: string } = { role: 'viewer' },
  ) => {
    class Controller {}
    const handler = function handler() {};
    if (route.role) NeedsRole(route.role)(Controller.prototype, 'handler', { value: handler });
    if (route.someApp) RoleOnSomeApp()(Controller.prototype, 'handler', { value: handler });
    return {
      getHandler: () => handler,
      getClass: () => Controller,
      switchToHttp: () => ({
        getRequest: () => ({ method, headers, params: route.app ? { app: route.app } : {}, header: (name: string) => headers[name.toLowerCase()] }),
      }),
    } as unknown as ExecutionContext;
  };
  const guard = (enabled: boolean, session: { csrf: string; grants?: Grants } | null) =>
    new AdminGuard(
      { enabled, sessionOf: async () => session && { ...session, operator: { grants: session.grants ?? OWNER } } } as unknown as AdminSessionsService,
      new Reflector(),
    );
  const refusal = (promise: Promise<boolean>) =>
    promise.then(
      () => 'allowed',
      (e: Error) => e.constructor.name,
    );

  it('is 404 when off, 401 without a session, 403 for a change without the CSRF token', async () => {
    expect(await refusal(guard(false, { csrf: 'x' }).canActivate(context('GET')))).toBe(NotFoundException.name);
    expect(await refusal(guard(true, null).canActivate(context('GET')))).toBe(UnauthorizedException.name);
    expect(await refusal(guard(true, { csrf: 'token' }).canActivate(context('GET')))).toBe('allowed');
    expect(await refusal(guard(true, { csrf: 'token' }).canActivate(context('POST')))).toBe(ForbiddenException.name);
    expect(await refusal(guard(true, { csrf: 'token' }).canActivate(context('POST', { 'x-csrf-token': 'other' })))).toBe(ForbiddenException.name);
    expect(await refusal(guard(true, { csrf: 'token' }).canActivate(context('DELETE', { 'x-csrf-token': 'token' })))).toBe('allowed');
  });

  it('holds each route to its role: for its app, for every app, or (RoleOnSomeApp) for one; a route without a role is refused', async () => {
    const csrf = { 'x-csrf-token': 't' };
    const check = (grants: Grants, route: Parameters<typeof context>[2]) =>
      refusal(guard(true, { csrf: 't', grants }).canActivate(context('POST', csrf, route)));
    const appEditor: Grants = [{ app_id: APP, role: 'editor' }];
    expect(await check(appEditor, { role: 'editor', app: APP })).toBe('allowed');
    expect(await check(appEditor, { role: 'owner', app: APP })).toBe(ForbiddenException.name);
    expect(await check(appEditor, { role: 'viewer', app: OTHER })).toBe(ForbiddenException.name);
    expect(await check(appEditor, { role: 'viewer' })).toBe(ForbiddenException.name);
    expect(await check(appEditor, { role: 'viewer', someApp: true })).toBe('allowed');
    expect(await check(appEditor, { role: 'owner', someApp: true })).toBe(ForbiddenException.name);
    const viewerEverywhereOwnerOfOne: Grants = [
      { app_id: null, role: 'viewer' },
      { app_id: APP, role: 'owner' },
    ];
    expect(await check(viewerEverywhereOwnerOfOne, { role: 'owner', app: APP })).toBe('allowed');
    expect(await check(viewerEverywhereOwnerOfOne, { role: 'editor', app: OTHER })).toBe(ForbiddenException.name);
    expect(await check(viewerEverywhereOwnerOfOne, { role: 'viewer' })).toBe('allowed');
    expect(await check(viewerEverywhereOwnerOfOne, { role: 'owner' })).toBe(ForbiddenException.name);
    expect(await check(OWNER, {})).toBe(ForbiddenException.name);
  });
});

describe('adminPages', () => {
  const run = (enabled: boolean, path: string) => {
    const res = {
      statusCode: 200,
      status(code: number) {
        this.statusCode = code;
        return this;
      },
      json: jest.fn(),
      setHeader: jest.fn(),
      sendFile: jest.fn(),
    };
    const next = jest.fn();
    adminPages(enabled, '/nonexistent-dir')({ originalUrl: path, method: 'GET' } as never, res as never, next);
    return { res, next };
  };

  it('leaves the API, the queue dashboard and other paths alone', () => {
    for (const path of ['/admin/api/apps', '/admin/queues', '/admin/queues/api', '/api/v1/notifications', '/administrator']) {
      expect(run(true, path).next).toHaveBeenCalled();
    }
  });

  it('answers 404 when off, and the app for its own routes when on', () => {
    expect(run(false, '/admin/apps').res.statusCode).toBe(404);
    const on = run(true, '/admin/apps/x?search=y');
    expect(on.res.sendFile).toHaveBeenCalledWith('/nonexistent-dir/index.html');
    expect(on.res.setHeader).toHaveBeenCalledWith('Content-Security-Policy', expect.stringContaining("default-src 'self'"));
  });
});
