import { Module } from '@nestjs/common';
import { RateLimitStorageModule } from '../rate-limit/rate-limit.module';
import { AdminSessionsService } from './admin-sessions.service';

/**
 * The operator dashboard's logins and sessions, a module of their own so that the queue
 * dashboard's door (BullBoardModule's middleware, built before AdminModule's providers) uses them.
 */
@Module({ imports: [RateLimitStorageModule], providers: [AdminSessionsService], exports: [AdminSessionsService] })
export class AdminSessionsModule {}
