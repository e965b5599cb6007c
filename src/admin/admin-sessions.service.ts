import { HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { EnvironmentVariables } from '../config/env';
import { SharedThrottlerStorage } from '../rate-limit/shared-throttler.storage';
import { AdminSession, cookieValue, issueSession, SESSION_COOKIE, SESSION_SECONDS, sessionKey, verifySession } from './admin-session';

const digest = (value: string) => createHash('sha256').update(value).digest();
/** Compares digests, so neither the length nor the content of the secret leaks through timing. */
const same = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

/** Whether an `Authorization: Basic` header carries the credentials; both halves always compared, so timing tells nothing. */
export function adminCredentialsMatch(authorization: string | undefined, user: string, password: string): boolean {
  const [scheme, encoded] = (authorization ?? '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !encoded) return false;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const userOk = colon >= 0 && same(decoded.slice(0, colon), user);
  const passwordOk = colon >= 0 && same(decoded.slice(colon + 1), password);
  return userOk && passwordOk;
}

/** Failed logins per client address and window before its logins are refused for the block time. */
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

/** The operator dashboard's logins and signed session cookies (docs/operations.md "Operator dashboard"); off without ADMIN_USER and ADMIN_PASSWORD. */
@Injectable()
export class AdminSessionsService {
  private readonly key: Buffer | null;

  constructor(
    private readonly config: EnvironmentVariables,
    private readonly throttle: SharedThrottlerStorage,
  ) {
    const { ADMIN_USER: user, ADMIN_PASSWORD: password } = config;
    this.key = user && password ? sessionKey(config.APP_KEY, user, password) : null;
  }

  get enabled(): boolean {
    return this.key !== null;
  }

  get user(): string {
    return this.config.ADMIN_USER ?? '';
  }

  sessionOf(req: Pick<IncomingMessage, 'headers'>): AdminSession | null {
    if (!this.key) return null;
    return verifySession(this.key, cookieValue(req.headers.cookie, SESSION_COOKIE));
  }

  /** A new session for the right credentials; a client's failures, counted in the shared store (Redis or PostgreSQL) for every api, block it (429) past the limit. */
  async login(authorization: string | undefined, client: string): Promise<{ token: string; session: AdminSession }> {
    if (!this.key) throw new Error('The operator dashboard is off');
    const tracker = `ip:${client}`;
    const blockedMs = await this.throttle.blockedFor(tracker, THROTTLER);
    if (blockedMs > 0) throw new AdminLoginRefused(HttpStatus.TOO_MANY_REQUESTS, Math.ceil(blockedMs / 1000));
    if (adminCredentialsMatch(authorization, this.config.ADMIN_USER!, this.config.ADMIN_PASSWORD!)) return issueSession(this.key);
    const counted = await this.throttle.increment(tracker, LOGIN_WINDOW_MS, LOGIN_FAILURES_ALLOWED, LOGIN_BLOCK_MS, THROTTLER);
    if (counted.isBlocked) throw new AdminLoginRefused(HttpStatus.TOO_MANY_REQUESTS, counted.timeToBlockExpire);
    throw new AdminLoginRefused(HttpStatus.UNAUTHORIZED);
  }

  /** The Set-Cookie value of a session (null token: the cookie cleared). */
  cookie(token: string | null, secure: boolean): string {
    const attributes = ['Path=/admin', 'HttpOnly', 'SameSite=Strict', `Max-Age=${token ? SESSION_SECONDS : 0}`];
    if (secure) attributes.push('Secure');
    return [`${SESSION_COOKIE}=${token ?? ''}`, ...attributes].join('; ');
  }
}
