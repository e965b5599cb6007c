import { CanActivate, ExecutionContext, ForbiddenException, Injectable, Type, UnauthorizedException } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Ability, grants } from './abilities';
import type { AuthContext } from './auth-context';
import { ABILITIES_KEY, ACCESS_CHECK_KEY, AccessCheck, PUBLIC_KEY } from './auth.decorators';
import { authenticateRequest } from './request-authentication';

/** The global guard: authenticates (401, reusing the body parser's lookup), then checks the route's abilities (403). */
@Injectable()
export class AbilitiesGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<IncomingMessage & { user?: AuthContext; params?: Record<string, string> }>();
    const auth = await authenticateRequest(req, http.getResponse<ServerResponse>());
    if (!auth) throw new UnauthorizedException();
    req.user = auth;
    const required = this.reflector.getAllAndOverride<Ability[] | undefined>(ABILITIES_KEY, targets);
    // An empty list is any valid token; no list at all is refused.
    if (!required || !required.every((ability) => grants(auth.abilities, ability))) {
      throw new ForbiddenException();
    }
    const check = this.reflector.getAllAndOverride<Type<AccessCheck> | undefined>(ACCESS_CHECK_KEY, targets);
    if (check && !(await this.moduleRef.get(check, { strict: false }).allows(auth, req))) throw new ForbiddenException();
    return true;
  }
}
