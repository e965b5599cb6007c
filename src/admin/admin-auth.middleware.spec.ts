import type { NextFunction, Request, Response } from 'express';
import { adminBasicAuth } from './admin-auth.middleware';

function run(config: { ADMIN_USER?: string; ADMIN_PASSWORD?: string }, authorization?: string) {
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
  };
  const next = jest.fn();
  adminBasicAuth(config)({ headers: { authorization } } as Request, res as unknown as Response, next as NextFunction);
  return { res, next };
}

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;
const ON = { ADMIN_USER: 'ops', ADMIN_PASSWORD: 'pass:with:colons' };

describe('adminBasicAuth', () => {
  it('is off (404, like an unknown route) when the credentials are not configured', () => {
    const { res, next } = run({}, basic('ops:anything'));
    expect(res.statusCode).toBe(404);
    expect(res.body).toEqual({ message: 'Not Found' });
    expect(next).not.toHaveBeenCalled();
  });

  it('lets the right user and password through (the password may contain colons)', () => {
    const { next } = run(ON, basic('ops:pass:with:colons'));
    expect(next).toHaveBeenCalledTimes(1);
  });

  it.each([undefined, basic('ops:pass'), basic('other:pass:with:colons'), basic('no-colon'), 'Bearer pns_x', 'Basic'])(
    'answers 401 with a challenge for %p',
    (authorization) => {
      const { res, next } = run(ON, authorization);
      expect(res.statusCode).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm="/);
      expect(next).not.toHaveBeenCalled();
    },
  );
});
