import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-http-bearer';
import { AuthContext } from './auth-context';
import { TokensService } from './tokens.service';

/** `Authorization: Bearer` only (docs/api.md#conventions): passport's query and body tokens end up in logs. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly tokens: TokensService) {
    super();
  }

  override authenticate(req: Request, options?: object): void {
    super.authenticate({ headers: { authorization: req.headers.authorization } } as Request, options);
  }

  async validate(token: string): Promise<AuthContext | false> {
    return (await this.tokens.authenticate(token)) ?? false;
  }
}
