import { CanActivate, ExecutionContext, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { PUBLIC_KEY } from '../auth/auth.decorators';
import { SchemaStatus } from './schema-status';

/**
 * First global guard: while migrations are pending, every authenticated route answers 503
 * (the token lookup itself needs the schema). Public routes (health) still answer, to say why.
 */
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
