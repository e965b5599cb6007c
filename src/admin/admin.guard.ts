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
