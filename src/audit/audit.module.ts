import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';
import { AuditLog } from './audit-log.service';
import { AuditRepository } from './audit.repository';

/** The audit log's recorder and reader, for the dashboard, the CLI and the API. */
@Module({ providers: [AuditLog, AuditRepository], exports: [AuditLog] })
export class AuditModule {}

/** With `GET /api/v1/audit-log`: the api's only. */
@Module({ imports: [AuditModule], controllers: [AuditController] })
export class AuditApiModule {}
