import type { IncomingMessage, ServerResponse } from 'node:http';
import passport from 'passport';
import { AuthContext } from './auth-context';

const AUTHENTICATION = Symbol('authentication');

type RequestWithAuthentication = IncomingMessage & { [AUTHENTICATION]?: Promise<AuthContext | null> };

/** The caller through passport's `bearer` strategy, once per request whoever asks first; null when none is valid. */
export function authenticateRequest(req: IncomingMessage, res: ServerResponse): Promise<AuthContext | null> {
  const request = req as RequestWithAuthentication;
  request[AUTHENTICATION] ??= new Promise((resolve, reject) => {
    const authenticate = passport.authenticate('bearer', { session: false }, (error: Error | null, user: AuthContext | false) =>
      error ? reject(error) : resolve(user || null),
    ) as (req: IncomingMessage, res: ServerResponse, next: (error?: Error) => void) => void;
    authenticate(req, res, (error?: Error) => (error ? reject(error) : resolve(null)));
  });
  return request[AUTHENTICATION];
}
