import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { AuthContext } from './auth-context';
import { TokensService } from './tokens.service';

/** `Authorization: Bearer pns_...`, looked up by its SHA-256 hash. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly tokens: TokensService) {
    super();
  }

  async validate(token: string): Promise<AuthContext | false> {
    return (await this.tokens.authenticate(token)) ?? false;
  }
}
