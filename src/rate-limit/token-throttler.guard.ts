import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { AuthContext } from '../auth/auth-context';

/** One budget per API token over every route, after AbilitiesGuard; requests without a token are not limited. */
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
    return `token:${tracker}`;
  }
}
