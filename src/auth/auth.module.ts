import { Module } from '@nestjs/common';
import { Clock } from '../common/time';
import { BearerStrategy } from './bearer.strategy';
import { TokenCache } from './token-cache';
import { TokenChangesRepository } from './token-changes.repository';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

@Module({
  providers: [Clock, TokensService, TokensRepository, TokenCache, TokenChangesRepository, BearerStrategy],
  exports: [TokensService],
})
export class AuthModule {}
