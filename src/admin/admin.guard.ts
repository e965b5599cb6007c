import {
  applyDecorators,
  CanActivate,
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
import { csrfHeld } from './admin-session';
import { AdminSessionsService } from './admin-sessions.service';

const NO_SESSION_KEY = 'adminNoSession';
export const NO_SESSION_EXTENSION = 'x-without-session';
export const WithoutSession = () => applyDecorators(SetMetadata(NO_SESSION_KEY, true), ApiExtension(NO_SESSION_EXTENSION, true));

/** An operator's role: a viewer reads; an editor also sends, cancels and manages topics; an owner also manages apps and operators. */
export const OPERATOR_ROLES = ['viewer', 'editor', 'owner'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];
const ROLE_KEY = 'adminRole';
export const ROLE_EXTENSION = 'x-role';
/** The least role a route needs; every route with a session names one (admin-openapi.spec checks). */
export const NeedsRole = (role: OperatorRole) => applyDecorators(SetMetadata(ROLE_KEY, role), ApiExtension(ROLE_EXTENSION, role));
export const roleNeeded = (reflector: Reflector, context: ExecutionContext): OperatorRole | undefined =>
  reflector.getAllAndOverride<OperatorRole>(ROLE_KEY, [context.getHandler(), context.getClass()]);

/** Every /admin/api route: 404 while off, 401 without a session, 403 for a change without its X-CSRF-Token. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly sessions: AdminSessionsService,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.sessions.enabled) throw new NotFoundException();
    if (this.reflector.getAllAndOverride<boolean>(NO_SESSION_KEY, [context.getHandler(), context.getClass()])) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const session = this.sessions.sessionOf(req);
    if (!session) throw new UnauthorizedException();
    if (!csrfHeld(req, session)) throw new ForbiddenException();
    return true;
  }
}
