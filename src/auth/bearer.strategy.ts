import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-http-bearer';
import { AuthContext } from './auth-context';
import { TokensService } from './tokens.service';

/**
 * `Authorization: Bearer pns_...`, looked up by its SHA-256 hash. Only the header counts:
 * passport-http-bearer also takes `access_token` from the query string and the body, where a token
 * ends up in logs, proxies and browser histories; docs/api.md#conventions documents the header alone.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly tokens: TokensService) {
    super();
  }

  override authenticate(req: Request, options?: object): void {
    // The strategy sees the header and nothing else of the request.
    super.authenticate({ headers: { authorization: req.headers.authorization } } as Request, options);
  }

  async validate(token: string): Promise<AuthContext | false> {
    return (await this.tokens.authenticate(token)) ?? false;
  }
}
