import type { IncomingMessage, ServerResponse } from 'node:http';
import passport from 'passport';
import { AuthContext } from './auth-context';

const AUTHENTICATION = Symbol('authentication');

type RequestWithAuthentication = IncomingMessage & { [AUTHENTICATION]?: Promise<AuthContext | null> };

/**
 * The caller of a request, through passport's `bearer` strategy (BearerStrategy), looked up once per
 * request whoever asks first: the body parser (which reads a body only for an authenticated caller)
 * or AbilitiesGuard. Null when the header is missing, malformed or names no valid token.
 */
export function authenticateRequest(req: IncomingMessage, res: ServerResponse): Promise<AuthContext | null> {
  const request = req as RequestWithAuthentication;
  request[AUTHENTICATION] ??= new Promise((resolve, reject) => {
    // With a callback passport only reports: it neither answers the request nor touches a session.
    const authenticate = passport.authenticate('bearer', { session: false }, (error: Error | null, user: AuthContext | false) =>
      error ? reject(error) : resolve(user || null),
    ) as (req: IncomingMessage, res: ServerResponse, next: (error?: Error) => void) => void;
    authenticate(req, res, (error?: Error) => (error ? reject(error) : resolve(null)));
  });
  return request[AUTHENTICATION];
}
