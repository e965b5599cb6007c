import { ForbiddenException, NotFoundException, UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { adminPages } from './admin-pages.middleware';
import { AdminGuard } from './admin.guard';
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
  const context = (method: string, headers: Record<string, string> = {}) =>
    ({
      getHandler: () => function handler() {},
      getClass: () => class Controller {},
      switchToHttp: () => ({ getRequest: () => ({ method, headers, header: (name: string) => headers[name.toLowerCase()] }) }),
    }) as unknown as ExecutionContext;
  const guard = (enabled: boolean, session: { csrf: string } | null) =>
    new AdminGuard({ enabled, sessionOf: () => session } as unknown as AdminSessionsService, new Reflector());

  it('is 404 when off, 401 without a session, 403 for a change without the CSRF token', () => {
    expect(() => guard(false, { csrf: 'x' }).canActivate(context('GET'))).toThrow(NotFoundException);
    expect(() => guard(true, null).canActivate(context('GET'))).toThrow(UnauthorizedException);
    expect(guard(true, { csrf: 'token' }).canActivate(context('GET'))).toBe(true);
    expect(() => guard(true, { csrf: 'token' }).canActivate(context('POST'))).toThrow(ForbiddenException);
    expect(() => guard(true, { csrf: 'token' }).canActivate(context('POST', { 'x-csrf-token': 'other' }))).toThrow(ForbiddenException);
    expect(guard(true, { csrf: 'token' }).canActivate(context('DELETE', { 'x-csrf-token': 'token' }))).toBe(true);
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
