import { ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { Ability, grants } from './abilities';
import { AuthContext } from './auth-context';
import { ABILITIES_KEY, PUBLIC_KEY } from './auth.decorators';

/**
 * The global guard (APP_GUARD): authenticates the bearer token (401), then checks the route's
 * abilities (403). A route that declares no ability is refused to everyone but @Public() ones.
 */
@Injectable()
export class AbilitiesGuard extends AuthGuard('bearer') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    await super.canActivate(context);
    const required = this.reflector.getAllAndOverride<Ability[] | undefined>(ABILITIES_KEY, targets);
    const auth: AuthContext = context.switchToHttp().getRequest().user;
    if (!required?.length || !required.every((ability) => grants(auth.abilities, ability))) {
      throw new ForbiddenException();
    }
    return true;
  }
}
