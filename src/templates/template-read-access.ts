import { Injectable } from '@nestjs/common';
import { grants } from '../auth/abilities';
import type { AuthContext } from '../auth/auth-context';
import { RequireAccess } from '../auth/auth.decorators';

/** Reading templates (docs/api.md#templates): those who send from them or write them. */
@Injectable()
export class TemplateReadAccess {
  allows(auth: AuthContext): Promise<boolean> {
    return Promise.resolve(grants(auth.abilities, 'notifications:send') || grants(auth.abilities, 'templates:write'));
  }
}

export const RequireTemplateRead = () =>
  RequireAccess(TemplateReadAccess, ['notifications:send', 'templates:write'], 'The token has neither `notifications:send` nor `templates:write` (nor `*`).');
