import {
  applyDecorators,
  CanActivate,
  createParamDecorator,
  ExecutionContext,
  ForbiddenException,
  Injectable,
  NotFoundException,
  SetMetadata,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiExtension } from '@nestjs/swagger';
import type { Request } from 'express';
import { OPERATOR_ROLES, type OperatorRole } from '../common/vocabulary';
import { grantsRole, grantsRoleSomewhere } from '../operators/roles';
import { AdminSession, csrfHeld } from './admin-session';
import { AdminSessionsService } from './admin-sessions.service';

export { OPERATOR_ROLES, type OperatorRole };

const NO_SESSION_KEY = 'adminNoSession';
export const NO_SESSION_EXTENSION = 'x-without-session';
export const WithoutSession = () => applyDecorators(SetMetadata(NO_SESSION_KEY, true), ApiExtension(NO_SESSION_EXTENSION, true));

const ROLE_KEY = 'adminRole';
export const ROLE_EXTENSION = 'x-role';
/** The least role a route needs; every route with a session names one (admin-openapi.spec checks). */
export const NeedsRole = (role: OperatorRole) => applyDecorators(SetMetadata(ROLE_KEY, role), ApiExtension(ROLE_EXTENSION, role));
export const roleNeeded = (reflector: Reflector, context: ExecutionContext): OperatorRole | undefined =>
  reflector.getAllAndOverride<OperatorRole>(ROLE_KEY, [context.getHandler(), context.getClass()]);

const SOME_APP_KEY = 'adminRoleOnSomeApp';
export const ROLE_SCOPE_EXTENSION = 'x-role-scope';
/**
 * A route without `:app` whose role is enough on any one app (the operator's own sessions, the app list): it answers
 * only about what the operator may see. Without it, a route without `:app` needs its role for every app.
 */
export const RoleOnSomeApp = () => applyDecorators(SetMetadata(SOME_APP_KEY, true), ApiExtension(ROLE_SCOPE_EXTENSION, 'some-app'));

const SESSION = Symbol('adminSession');
type WithSession = Request & { [SESSION]?: AdminSession };

/** The request's session, which AdminGuard checked; for handlers and the audit log. */
export const CurrentSession = createParamDecorator((_data: unknown, context: ExecutionContext): AdminSession => {
  const session = context.switchToHttp().getRequest<WithSession>()[SESSION];
  if (!session) throw new Error('CurrentSession on a route without a session');
  return session;
});

/**
 * Every /admin/api route: 404 while off, 401 without a session, 403 for a change without its X-CSRF-Token or for an
 * operator without the route's role (docs/api.md#273-roles): for the route's `:app`, for every app, or (RoleOnSomeApp) for one.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly sessions: AdminSessionsService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.sessions.enabled) throw new NotFoundException();
    if (this.reflector.getAllAndOverride<boolean>(NO_SESSION_KEY, [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest<WithSession>();
    const session = await this.sessions.sessionOf(req);
    if (!session) throw new UnauthorizedException();
    if (!csrfHeld(req, session)) throw new ForbiddenException();
    const role = roleNeeded(this.reflector, context);
    // A route without a role is a programming error admin-openapi.spec catches; refused rather than open.
    if (!role) throw new ForbiddenException();
    const { grants } = session.operator;
    const appId = (req.params as Record<string, string | undefined>)?.app;
    const someApp = this.reflector.getAllAndOverride<boolean>(SOME_APP_KEY, [context.getHandler(), context.getClass()]);
    const allowed = appId !== undefined ? grantsRole(grants, role, appId) : someApp ? grantsRoleSomewhere(grants, role) : grantsRole(grants, role, null);
    if (!allowed) throw new ForbiddenException();
    req[SESSION] = session;
    return true;
  }
}
