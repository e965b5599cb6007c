import { CanActivate, ExecutionContext, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { PUBLIC_KEY } from '../auth/auth.decorators';
import { SchemaStatus } from './schema-status';

/** While migrations are pending, authenticated routes answer 503; health still answers, to say why. */
@Injectable()
export class SchemaGuard implements CanActivate {
  constructor(
    private readonly schema: SchemaStatus,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (this.schema.pending.length === 0) return true;
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, [context.getHandler(), context.getClass()])) return true;
    throw new ServiceUnavailableException();
  }
}
