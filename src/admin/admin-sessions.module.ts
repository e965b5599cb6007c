import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { OperatorsModule } from '../operators/operators.module';
import { RateLimitStorageModule } from '../rate-limit/rate-limit.module';
import { AdminSessionsService } from './admin-sessions.service';

@Module({
  imports: [RateLimitStorageModule, OperatorsModule, AuditModule],
  providers: [AdminSessionsService],
  exports: [AdminSessionsService, OperatorsModule, AuditModule],
})
export class AdminSessionsModule {}
