import { CanActivate, ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Ability, grants } from './abilities';
import { AuthContext } from './auth-context';
import { ABILITIES_KEY, PUBLIC_KEY } from './auth.decorators';
import { bearerCredentials } from './bearer-token';
import { TokensService } from './tokens.service';

/**
 * The global guard (APP_GUARD): authenticates the bearer token (401), then checks the route's
 * abilities (403). A route that declares no ability is refused to everyone but @Public() ones.
 * It reads the token and asks TokensService itself: passport (and @nestjs/passport's guard)
 * cost several closures, promises and a request patch per call for what is one header split.
 */
@Injectable()
export class AbilitiesGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokensService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const req = context.switchToHttp().getRequest();
    const token = bearerCredentials(req);
    // Checked on every request (no cache), so a revoked or expired token stops working at once.
    const auth: AuthContext | null = token === undefined ? null : await this.tokens.authenticate(token as string);
    if (!auth) throw new UnauthorizedException();
    req.user = auth;
    const required = this.reflector.getAllAndOverride<Ability[] | undefined>(ABILITIES_KEY, targets);
    if (!required?.length || !required.every((ability) => grants(auth.abilities, ability))) {
      throw new ForbiddenException();
    }
    return true;
  }
}
