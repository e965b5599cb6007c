import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { BearerStrategy } from './bearer.strategy';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [TokensService, TokensRepository, BearerStrategy],
  exports: [TokensService],
})
export class AuthModule {}
