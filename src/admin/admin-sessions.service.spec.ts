import { HttpStatus } from '@nestjs/common';
import { newTestService } from '../../test/support/new-test-service';
import { AuditLog } from '../audit/audit-log.service';
import { NewSession, OperatorsRepository, SessionRow } from '../operators/operators.repository';
import { OperatorsService } from '../operators/operators.service';
import { RedisThrottlerStorage } from '../rate-limit/redis-throttler.storage';
import { SESSION_COOKIE, SESSION_SECONDS } from './admin-session';
import { AdminLoginRefused, AdminSessionsService, LOGIN_BLOCK_MS, LOGIN_FAILURES_ALLOWED, LOGIN_WINDOW_MS } from './admin-sessions.service';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AdminLoginRefused);
  return { status: (error as AdminLoginRefused).getStatus(), retryAfter: (error as AdminLoginRefused).retryAfterSeconds };
};
const from = (address: string) => ({ address, userAgent: 'test' });
const cookie = (token: string) => ({ headers: { cookie: `a=b; ${SESSION_COOKIE}=${token}` } });

/** The sessions' storage in memory: what OperatorsRepository keeps in PostgreSQL (tested in test/integration/operators.int-spec.ts). */
class SessionsInMemory {
  rows = new Map<string, SessionRow & { revoked: boolean }>();
  insertSession = jest.fn(async (s: NewSession) => {
    const id = `session-${this.rows.size + 1}`;
    const grants = [{ app_id: null, role: 'owner' as const }];
    this.rows.set(s.tokenHash.toString('hex'), { id, csrf: s.csrf, expires_at: s.expiresAt, operator_id: s.operatorId, email: 'ops', grants, revoked: false });
    return id;
  });
  session = jest.fn(async (hash: Buffer) => {
    const row = this.rows.get(hash.toString('hex'));
    if (!row || row.revoked) return null;
    const { revoked: _, ...session } = row;
    return session;
  });
  revokeSession = jest.fn(async (id: string) => {
    for (const row of this.rows.values()) if (row.id === id) row.revoked = true;
    return true;
  });
}

/** Operator dashboard logins (docs/operations.md "Operator dashboard"), with the shared failure counter faked. */
describe('AdminSessionsService', () => {
  const setup = (credentials = { ADMIN_USER: 'ops', ADMIN_PASSWORD: 'correct horse' }, store = new SessionsInMemory()) => {
    const built = newTestService(AdminSessionsService, { env: credentials, providers: [{ provide: OperatorsRepository, useValue: store }] });
    const throttle = built.mocks.get(RedisThrottlerStorage);
    throttle.blockedFor.mockResolvedValue(0);
    throttle.increment.mockResolvedValue({ totalHits: 1, timeToExpire: 900, isBlocked: false, timeToBlockExpire: 0 });
    const operators = built.mocks.get(OperatorsService);
    operators.bootstrap.mockResolvedValue('operator-1');
    operators.withPassword.mockResolvedValue(null);
    return { ...built, throttle, operators, store, audit: built.mocks.get(AuditLog) };
  };

  it('is off without ADMIN_USER and ADMIN_PASSWORD: no session is ever recognised, no login is possible', async () => {
    const { sut } = setup({ ADMIN_USER: undefined, ADMIN_PASSWORD: undefined } as never);
    expect(sut.enabled).toBe(false);
    expect(await sut.sessionOf({ headers: { cookie: `${SESSION_COOKIE}=${'a'.repeat(43)}` } })).toBeNull();
    await expect(sut.login(basic('ops', 'correct horse'), from('10.0.0.1'))).rejects.toThrow('The operator dashboard is off');
  });

  it('opens a session for the bootstrap credentials, which its cookie then carries, and records the login', async () => {
    const { sut, throttle, audit, operators } = setup();
    const { token, session } = await sut.login(basic('ops', 'correct horse'), from('10.0.0.1'));
    expect(operators.bootstrap).toHaveBeenCalledWith('ops');
    expect(await sut.sessionOf(cookie(token))).toEqual(session);
    expect(await sut.sessionOf(cookie(`${token.slice(0, -1)}x`))).toBeNull();
    expect(throttle.increment).not.toHaveBeenCalled();
    expect(audit.record).toHaveBeenCalledWith(
      { kind: 'operator', id: 'operator-1', label: 'ops', address: '10.0.0.1' },
      { action: 'session.login', target: 'ops', details: { method: 'password' } },
    );
  });

  it("opens a session for an operator's e-mail and password", async () => {
    const { sut, operators } = setup();
    operators.withPassword.mockResolvedValue({ id: 'operator-2' } as never);
    const { session } = await sut.login(basic('ana@example.com', 'her password'), from('10.0.0.1'));
    expect(operators.withPassword).toHaveBeenCalledWith('ana@example.com', 'her password');
    expect(session.operator.id).toBe('operator-2');
  });

  it('a session of other bootstrap credentials (a changed password) is no longer recognised', async () => {
    const store = new SessionsInMemory();
    const { token } = await setup(undefined, store).sut.login(basic('ops', 'correct horse'), from('10.0.0.1'));
    const changed = setup({ ADMIN_USER: 'ops', ADMIN_PASSWORD: 'new password' }, store).sut;
    expect(await changed.sessionOf(cookie(token))).toBeNull();
  });

  it('a closed (revoked) session is no longer recognised', async () => {
    const { sut } = setup();
    const { token, session } = await sut.login(basic('ops', 'correct horse'), from('10.0.0.1'));
    await sut.close(session, '10.0.0.1');
    expect(await sut.sessionOf(cookie(token))).toBeNull();
  });

  it('refuses wrong credentials with 401, counting the failure for the address and for the account', async () => {
    const { sut, throttle } = setup();
    expect(await refusal(sut.login(basic('ops', 'wrong'), from('10.0.0.1')))).toEqual({ status: HttpStatus.UNAUTHORIZED, retryAfter: undefined });
    expect(await refusal(sut.login(undefined, from('10.0.0.1')))).toMatchObject({ status: HttpStatus.UNAUTHORIZED });
    expect(throttle.increment).toHaveBeenCalledWith('ip:10.0.0.1', LOGIN_WINDOW_MS, LOGIN_FAILURES_ALLOWED, LOGIN_BLOCK_MS, 'admin-login');
    expect(throttle.increment).toHaveBeenCalledWith('account:ops', LOGIN_WINDOW_MS, LOGIN_FAILURES_ALLOWED, LOGIN_BLOCK_MS, 'admin-login');
    expect(throttle.increment).toHaveBeenCalledTimes(3);
  });

  it('answers 429 with Retry-After to the failure that reaches the limit, and then even to the right password', async () => {
    const { sut, throttle } = setup();
    throttle.increment.mockResolvedValueOnce({ totalHits: 11, timeToExpire: 900, isBlocked: true, timeToBlockExpire: 900 });
    expect(await refusal(sut.login(basic('ops', 'wrong'), from('10.0.0.1')))).toEqual({ status: HttpStatus.TOO_MANY_REQUESTS, retryAfter: 900 });

    throttle.blockedFor.mockImplementation(async (tracker: string) => (tracker === 'account:ops' ? 899_001 : 0));
    expect(await refusal(sut.login(basic('ops', 'correct horse'), from('10.0.0.9')))).toEqual({ status: HttpStatus.TOO_MANY_REQUESTS, retryAfter: 900 });
    expect(throttle.blockedFor).toHaveBeenCalledWith('account:ops', 'admin-login');
    expect(throttle.increment).toHaveBeenCalledTimes(2);
  });

  it('sets the cookie for /admin only, HttpOnly and SameSite=Strict, Secure over HTTPS; a null token clears it', () => {
    const { sut } = setup();
    expect(sut.cookie('t', true)).toBe(`${SESSION_COOKIE}=t; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=${SESSION_SECONDS}; Secure`);
    expect(sut.cookie(null, false)).toBe(`${SESSION_COOKIE}=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0`);
  });
});
