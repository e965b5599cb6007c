import { Module } from '@nestjs/common';
import { AppsModule } from '../apps/apps.module';
import { Clock } from '../common/time';
import { AppController } from './app.controller';
import { BearerStrategy } from './bearer.strategy';
import { TokenCache } from './token-cache';
import { TokenChangesRepository } from './token-changes.repository';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

@Module({
  imports: [AppsModule],
  controllers: [AppController],
  providers: [Clock, TokensService, TokensRepository, TokenCache, TokenChangesRepository, BearerStrategy],
  exports: [TokensService],
})
export class AuthModule {}
