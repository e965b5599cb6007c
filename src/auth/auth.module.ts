import { Module } from '@nestjs/common';
import { BearerStrategy } from './bearer.strategy';
import { TokensService } from './tokens.service';

@Module({
  providers: [TokensService, BearerStrategy],
  exports: [TokensService],
})
export class AuthModule {}
