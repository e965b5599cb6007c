import { HttpStatus } from '@nestjs/common';
import { newTestService } from '../../test/support/new-test-service';
import { SharedThrottlerStorage } from '../rate-limit/shared-throttler.storage';
import { SESSION_COOKIE, SESSION_SECONDS } from './admin-session';
import { AdminLoginRefused, AdminSessionsService, LOGIN_BLOCK_MS, LOGIN_FAILURES_ALLOWED, LOGIN_WINDOW_MS } from './admin-sessions.service';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AdminLoginRefused);
  return { status: (error as AdminLoginRefused).getStatus(), retryAfter: (error as AdminLoginRefused).retryAfterSeconds };
};

/** Operator dashboard logins (docs/operations.md "Operator dashboard"), with the shared failure counter faked. */
describe('AdminSessionsService', () => {
  const setup = (credentials = { ADMIN_USER: 'ops', ADMIN_PASSWORD: 'correct horse' }) => {
    const built = newTestService(AdminSessionsService, {
      env: credentials,
      providers: [{ provide: SharedThrottlerStorage, useValue: { blockedFor: jest.fn(), increment: jest.fn() } }],
    });
    const throttle = built.mocks.get(SharedThrottlerStorage);
    throttle.blockedFor.mockResolvedValue(0);
    throttle.increment.mockResolvedValue({ totalHits: 1, timeToExpire: 900, isBlocked: false, timeToBlockExpire: 0 });
    return { ...built, throttle };
  };

  it('is off without ADMIN_USER and ADMIN_PASSWORD: no session is ever recognised, no login is possible', async () => {
    const { sut } = setup({ ADMIN_USER: undefined, ADMIN_PASSWORD: undefined } as never);
    expect(sut.enabled).toBe(false);
    expect(sut.sessionOf({ headers: { cookie: `${SESSION_COOKIE}=anything` } })).toBeNull();
    await expect(sut.login(basic('ops', 'correct horse'), '10.0.0.1')).rejects.toThrow('The operator dashboard is off');
  });

  it('opens a session for the right credentials, which its cookie then carries', async () => {
    const { sut, throttle } = setup();
    const { token, session } = await sut.login(basic('ops', 'correct horse'), '10.0.0.1');
    expect(sut.sessionOf({ headers: { cookie: `a=b; ${SESSION_COOKIE}=${token}` } })).toEqual(session);
    expect(sut.sessionOf({ headers: { cookie: `${SESSION_COOKIE}=${token}x` } })).toBeNull();
    expect(throttle.increment).not.toHaveBeenCalled();
  });

  it('a session of other credentials (a changed password) is no longer recognised', async () => {
    const { token } = await setup().sut.login(basic('ops', 'correct horse'), '10.0.0.1');
    const changed = setup({ ADMIN_USER: 'ops', ADMIN_PASSWORD: 'new password' }).sut;
    expect(changed.sessionOf({ headers: { cookie: `${SESSION_COOKIE}=${token}` } })).toBeNull();
  });

  it('refuses wrong credentials with 401, counting the failure for the client address in its window', async () => {
    const { sut, throttle } = setup();
    expect(await refusal(sut.login(basic('ops', 'wrong'), '10.0.0.1'))).toEqual({ status: HttpStatus.UNAUTHORIZED, retryAfter: undefined });
    expect(await refusal(sut.login(undefined, '10.0.0.1'))).toMatchObject({ status: HttpStatus.UNAUTHORIZED });
    expect(throttle.increment).toHaveBeenCalledWith('ip:10.0.0.1', LOGIN_WINDOW_MS, LOGIN_FAILURES_ALLOWED, LOGIN_BLOCK_MS, 'admin-login');
    expect(throttle.increment).toHaveBeenCalledTimes(2);
  });

  it('answers 429 with Retry-After to the failure that reaches the limit, and then even to the right password', async () => {
    const { sut, throttle } = setup();
    throttle.increment.mockResolvedValueOnce({ totalHits: 11, timeToExpire: 900, isBlocked: true, timeToBlockExpire: 900 });
    expect(await refusal(sut.login(basic('ops', 'wrong'), '10.0.0.1'))).toEqual({ status: HttpStatus.TOO_MANY_REQUESTS, retryAfter: 900 });

    throttle.blockedFor.mockResolvedValue(899_001);
    expect(await refusal(sut.login(basic('ops', 'correct horse'), '10.0.0.1'))).toEqual({ status: HttpStatus.TOO_MANY_REQUESTS, retryAfter: 900 });
    expect(throttle.blockedFor).toHaveBeenLastCalledWith('ip:10.0.0.1', 'admin-login');
    expect(throttle.increment).toHaveBeenCalledTimes(1);
  });

  it('sets the cookie for /admin only, HttpOnly and SameSite=Strict, Secure over HTTPS; a null token clears it', () => {
    const { sut } = setup();
    expect(sut.cookie('t', true)).toBe(`${SESSION_COOKIE}=t; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=${SESSION_SECONDS}; Secure`);
    expect(sut.cookie(null, false)).toBe(`${SESSION_COOKIE}=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0`);
  });
});
