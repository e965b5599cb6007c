import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { EnvironmentVariables } from '../config/env';

export const ADMIN_ROUTE = '/admin/queues';

const digest = (value: string) => createHash('sha256').update(value).digest();
/** Compares digests, so neither the length nor the content of the secret leaks through timing. */
const same = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

/**
 * Whether an `Authorization: Basic` header carries the admin credentials. Both halves are always
 * compared, so a wrong user takes as long as a wrong password.
 */
export function adminCredentialsMatch(authorization: string | undefined, user: string, password: string): boolean {
  const [scheme, encoded] = (authorization ?? '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !encoded) return false;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const userOk = colon >= 0 && same(decoded.slice(0, colon), user);
  const passwordOk = colon >= 0 && same(decoded.slice(colon + 1), password);
  return userOk && passwordOk;
}

/**
 * HTTP basic auth in front of the queue dashboard, with ADMIN_USER / ADMIN_PASSWORD. When they
 * are unset the dashboard is off and its path answers like any unknown route. The bodies are
 * those of docs/api.md#errors, so the dashboard's errors look like the rest of the API's.
 */
export function adminBasicAuth(config: Pick<EnvironmentVariables, 'ADMIN_USER' | 'ADMIN_PASSWORD'>): RequestHandler {
  const { ADMIN_USER: user, ADMIN_PASSWORD: password } = config;
  return (req: Request, res: Response, next: NextFunction) => {
    if (!user || !password) {
      res.status(404).json({ message: 'Not Found' });
      return;
    }
    if (adminCredentialsMatch(req.headers.authorization, user, password)) {
      next();
      return;
    }
    res.setHeader('WWW-Authenticate', 'Basic realm="Push queues", charset="UTF-8"');
    res.status(401).json({ message: 'Unauthenticated.' });
  };
}
