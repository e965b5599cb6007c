import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { AuthContext } from '../auth/auth-context';

/**
 * Rate limit per API token. Registered as an APP_GUARD after AbilitiesGuard, so it runs once the
 * caller is authenticated: the tracker is the token id, and one budget covers every route (the
 * library's default key is per route and per client IP). Requests without a token (health
 * checks; unauthenticated ones were already refused) are not limited. A blocked request gets 429
 * with Retry-After, set by ThrottlerGuard before the exception filter writes the body.
 */
@Injectable()
export class TokenThrottlerGuard extends ThrottlerGuard {
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    return !context.switchToHttp().getRequest<{ user?: AuthContext }>().user;
  }

  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    return (req.user as AuthContext).tokenId;
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, _throttlerName: string): string {
    // The storage adds the throttler name and QUEUE_PREFIX; a token id is already a UUID.
    return `token:${tracker}`;
  }
}
