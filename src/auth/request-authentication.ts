import type { IncomingMessage } from 'node:http';
import { AuthContext } from './auth-context';
import { TokensService } from './tokens.service';

const AUTHENTICATION = Symbol('authentication');

type RequestWithAuthentication = IncomingMessage & { [AUTHENTICATION]?: Promise<AuthContext | null> };

/**
 * The token of `Authorization: Bearer <token>` (scheme in any case, one space), or null. Only the
 * header counts: a token in the query string or the body would end up in logs, proxies and
 * browser histories, and docs/api.md 1 documents the header alone.
 */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const parts = header.split(' ');
  return parts.length === 2 && /^bearer$/i.test(parts[0]) && parts[1] !== '' ? parts[1] : null;
}

/**
 * The caller of a request, looked up once per request whoever asks first: the body parser (which
 * reads a body only for an authenticated caller) or AbilitiesGuard.
 */
export function authenticateRequest(req: IncomingMessage, tokens: TokensService): Promise<AuthContext | null> {
  const request = req as RequestWithAuthentication;
  if (!request[AUTHENTICATION]) {
    const token = bearerToken(req.headers.authorization);
    request[AUTHENTICATION] = token ? tokens.authenticate(token) : Promise.resolve(null);
  }
  return request[AUTHENTICATION];
}
