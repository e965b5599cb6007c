import { Module } from '@nestjs/common';
import { RateLimitStorageModule } from '../rate-limit/rate-limit.module';
import { AdminSessionsService } from './admin-sessions.service';

@Module({ imports: [RateLimitStorageModule], providers: [AdminSessionsService], exports: [AdminSessionsService] })
export class AdminSessionsModule {}
