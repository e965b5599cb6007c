import { Module } from '@nestjs/common';
import { BearerStrategy } from './bearer.strategy';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

@Module({
  providers: [TokensService, TokensRepository, BearerStrategy],
  exports: [TokensService],
})
export class AuthModule {}
