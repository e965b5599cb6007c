import { HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuditActor } from '../audit/audit-log.service';
import { AuditLog } from '../audit/audit-log.service';
import { EnvironmentVariables } from '../config/env';
import { OperatorsRepository } from '../operators/operators.repository';
import { EMAIL, OperatorsService } from '../operators/operators.service';
import { SharedThrottlerStorage } from '../rate-limit/shared-throttler.storage';
import { AdminSession, cookieValue, newSessionTokens, SESSION_COOKIE, SESSION_SECONDS, sessionKey, sessionLookup } from './admin-session';

const digest = (value: string) => createHash('sha256').update(value).digest();
/** Compares digests, so neither the length nor the content of the secret leaks through timing. */
const same = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

/** The user and password of an `Authorization: Basic` header, or null. */
export function basicCredentials(authorization: string | undefined): { user: string; password: string } | null {
  const [scheme, encoded] = (authorization ?? '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !encoded) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Whether an `Authorization: Basic` header carries the credentials; both halves always compared, so timing tells nothing. */
export function adminCredentialsMatch(authorization: string | undefined, user: string, password: string): boolean {
  const given = basicCredentials(authorization);
  const userOk = given !== null && same(given.user, user);
  const passwordOk = given !== null && same(given.password, password);
  return userOk && passwordOk;
}

/** Failed logins per client address, and per account, in a window before its logins are refused for the block time. */
export const LOGIN_FAILURES_ALLOWED = 10;
export const LOGIN_WINDOW_MS = 15 * 60_000;
export const LOGIN_BLOCK_MS = 15 * 60_000;
const THROTTLER = 'admin-login';

/** A refused login: 401 (wrong credentials) or 429 (too many failures; Retry-After in seconds). */
export class AdminLoginRefused extends HttpException {
  constructor(
    status: HttpStatus.UNAUTHORIZED | HttpStatus.TOO_MANY_REQUESTS,
    readonly retryAfterSeconds?: number,
  ) {
    super(status === HttpStatus.UNAUTHORIZED ? 'Unauthenticated.' : 'Too Many Attempts.', status);
  }
}

/** Where a login comes from: the socket's address (not X-Forwarded-For, which a client could vary) and its browser. */
export interface LoginOrigin {
  address: string;
  userAgent: string | null;
}

/** The routes without a session whose JSON body is read: the token inside is their proof. */
export const ADMIN_BODIES_WITHOUT_SESSION = ['/admin/api/invitations/accept'];

/** What a login's failures are counted against: the address, and the account when one was named. */
const loginTrackers = (origin: LoginOrigin, account?: string) => [`ip:${origin.address}`, ...(account ? [`account:${account.toLowerCase()}`] : [])];

const resolved = new WeakMap<object, Promise<AdminSession | null>>();

/**
 * The operator dashboard's logins and sessions (docs/operations.md "Operator dashboard", docs/api.md#operators):
 * operators' passwords or the bootstrap ADMIN_USER and ADMIN_PASSWORD, sessions stored (revocable), off without the bootstrap pair.
 */
@Injectable()
export class AdminSessionsService {
  private readonly key: Buffer | null;

  constructor(
    private readonly config: EnvironmentVariables,
    private readonly throttle: SharedThrottlerStorage,
    private readonly operators: OperatorsService,
    private readonly repository: OperatorsRepository,
    private readonly audit: AuditLog,
  ) {
    const { ADMIN_USER: user, ADMIN_PASSWORD: password } = config;
    this.key = user && password ? sessionKey(config.APP_KEY, user, password) : null;
  }

  get enabled(): boolean {
    return this.key !== null;
  }

  /** The live session of the request's cookie; asked once per request however many times it is called. */
  sessionOf(req: Pick<IncomingMessage, 'headers'>): Promise<AdminSession | null> {
    let session = resolved.get(req);
    if (!session) {
      session = this.lookUp(cookieValue(req.headers.cookie, SESSION_COOKIE));
      resolved.set(req, session);
    }
    return session;
  }

  private async lookUp(token: string | undefined): Promise<AdminSession | null> {
    const hash = this.key && sessionLookup(this.key, token);
    if (!hash) return null;
    const row = await this.repository.session(hash);
    if (!row) return null;
    return { id: row.id, csrf: row.csrf, expiresAt: row.expires_at, operator: { id: row.operator_id, email: row.email, grants: row.grants } };
  }

  /**
   * A new session for an operator's e-mail and password, or the bootstrap credentials; failures are counted in the
   * shared store (Redis or PostgreSQL) for every api, per address and per account, and block either (429) past the limit.
   */
  async login(authorization: string | undefined, origin: LoginOrigin): Promise<{ token: string; session: AdminSession }> {
    if (!this.key) throw new Error('The operator dashboard is off');
    const given = basicCredentials(authorization);
    await this.refuseWhileBlocked(origin, given?.user);
    const operatorId = await this.authenticate(authorization);
    if (operatorId) return this.open(operatorId, 'password', origin);
    await this.countFailure(origin, given?.user);
    throw new AdminLoginRefused(HttpStatus.UNAUTHORIZED);
  }

  /**
   * A new session for the e-mail an OIDC provider vouched for (docs/api.md#oidc): its enabled operator, or a new one
   * when its domain is admitted; counted and blocked as password logins are, per address and per account.
   */
  async signIn(email: string, origin: LoginOrigin): Promise<{ token: string; session: AdminSession }> {
    if (!this.key) throw new Error('The operator dashboard is off');
    await this.refuseWhileBlocked(origin, email);
    const found = EMAIL.test(email) ? await this.operators.forSignIn(email) : null;
    if (!found) {
      await this.countFailure(origin, email);
      throw new AdminLoginRefused(HttpStatus.UNAUTHORIZED);
    }
    const { operator, created } = found;
    if (created) {
      const actor: AuditActor = { kind: 'operator', id: operator.id, label: operator.email, address: origin.address };
      await this.audit.record(actor, { action: 'operator.create', target: operator.email, details: { via: 'oidc', grants: operator.grants } });
    }
    return this.open(operator.id, 'oidc', origin);
  }

  /** Milliseconds the address (or the account) is still refused logins for; 0 when it is not. */
  async loginBlockedFor(origin: LoginOrigin, account?: string): Promise<number> {
    const trackers = loginTrackers(origin, account);
    return Math.max(...(await Promise.all(trackers.map((t) => this.throttle.blockedFor(t, THROTTLER)))));
  }

  /** 429 while the address (or the account) is refused logins. */
  private async refuseWhileBlocked(origin: LoginOrigin, account?: string): Promise<void> {
    const blockedMs = await this.loginBlockedFor(origin, account);
    if (blockedMs > 0) throw new AdminLoginRefused(HttpStatus.TOO_MANY_REQUESTS, Math.ceil(blockedMs / 1000));
  }

  /** Counts a failed login against the address (and the account); 429 once that blocks either. */
  async countFailure(origin: LoginOrigin, account?: string): Promise<void> {
    const trackers = loginTrackers(origin, account);
    const counted = await Promise.all(trackers.map((t) => this.throttle.increment(t, LOGIN_WINDOW_MS, LOGIN_FAILURES_ALLOWED, LOGIN_BLOCK_MS, THROTTLER)));
    const blocked = counted.filter((c) => c.isBlocked);
    if (blocked.length) throw new AdminLoginRefused(HttpStatus.TOO_MANY_REQUESTS, Math.max(...blocked.map((c) => c.timeToBlockExpire)));
  }

  private async authenticate(authorization: string | undefined): Promise<string | null> {
    if (adminCredentialsMatch(authorization, this.config.ADMIN_USER!, this.config.ADMIN_PASSWORD!)) return this.operators.bootstrap(this.config.ADMIN_USER!);
    const given = basicCredentials(authorization);
    if (!given) return null;
    return (await this.operators.withPassword(given.user, given.password))?.id ?? null;
  }

  /** Opens a session for an operator who proved who they are (password or OIDC), and records the login. */
  async open(operatorId: string, method: 'password' | 'oidc', origin: LoginOrigin, now = new Date()): Promise<{ token: string; session: AdminSession }> {
    if (!this.key) throw new Error('The operator dashboard is off');
    const { token, csrf } = newSessionTokens();
    const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + SESSION_SECONDS * 1000);
    const id = await this.repository.insertSession({
      operatorId,
      tokenHash: sessionLookup(this.key, token)!,
      csrf,
      method,
      address: origin.address,
      userAgent: origin.userAgent?.slice(0, 512) ?? null,
      expiresAt,
    });
    const row = (await this.repository.session(sessionLookup(this.key, token)!))!;
    const session: AdminSession = { id, csrf, expiresAt, operator: { id: operatorId, email: row.email, grants: row.grants } };
    await this.audit.record(actorOf(session, origin.address), { action: 'session.login', target: row.email, details: { method } });
    return { token, session };
  }

  /** Ends the request's own session. */
  async close(session: AdminSession, address: string): Promise<void> {
    await this.repository.revokeSession(session.id, session.operator.id);
    await this.audit.record(actorOf(session, address), { action: 'session.logout', target: session.operator.email });
  }

  /** The Set-Cookie value of a session (null token: the cookie cleared). */
  cookie(token: string | null, secure: boolean): string {
    const attributes = ['Path=/admin', 'HttpOnly', 'SameSite=Strict', `Max-Age=${token ? SESSION_SECONDS : 0}`];
    if (secure) attributes.push('Secure');
    return [`${SESSION_COOKIE}=${token ?? ''}`, ...attributes].join('; ');
  }
}

/** The audit log's actor for a change made in a session. */
export const actorOf = (session: AdminSession, address: string | null): AuditActor => ({
  kind: 'operator',
  id: session.operator.id,
  label: session.operator.email,
  address,
});
