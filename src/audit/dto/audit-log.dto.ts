import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Optional } from '../../common/validation/framework';
import { In, Instant, IntLike, Str } from '../../common/validation/rules';
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS, type AuditAction, type AuditActorKind } from '../../common/vocabulary';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMESTAMP = { type: String, format: 'date-time', example: '2026-11-22T10:00:00.000Z' } as const;

/** Filters of the audit log (dashboard and `GET /api/v1/audit-log`). */
export class AuditLogQueryDto {
  @ApiPropertyOptional({ description: 'Entries whose actor (e-mail, token name, `cli (user)`) contains this, in any case.' })
  @Optional()
  @Str({ min: 1, max: 320 })
  actor?: string;

  @ApiPropertyOptional({ enum: AUDIT_ACTIONS, enumName: 'AuditAction' })
  @Optional()
  @In(AUDIT_ACTIONS)
  action?: AuditAction;

  @ApiPropertyOptional({ format: 'uuid', description: "One app's entries." })
  @Optional()
  @Str({ pattern: UUID, patternMessage: 'The :attribute field must be a valid UUID.' })
  app_id?: string;

  @ApiPropertyOptional({ description: 'Entries at or after this instant.', example: '2026-11-22T00:00:00.000Z' })
  @Optional()
  @Instant()
  from?: string;

  @ApiPropertyOptional({ description: 'Entries before this instant.', example: '2026-11-23T00:00:00.000Z' })
  @Optional()
  @Instant()
  to?: string;

  @ApiPropertyOptional({ description: "The previous page's `meta.next_cursor`." })
  @Optional()
  @Str({ min: 1, max: 20, pattern: /^\d{1,19}$/, patternMessage: 'The :attribute field is invalid.' })
  cursor?: string;

  @ApiPropertyOptional({ default: 50, description: 'Entries per page, at most.' })
  @Optional()
  @IntLike({ min: 1, max: 200 })
  limit?: string | number;
}

export class AuditActorResource {
  @ApiProperty({ enum: AUDIT_ACTOR_KINDS, enumName: 'AuditActorKind' }) kind: AuditActorKind;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: "The operator's or token's id; null for the CLI." }) id: string | null;
  @ApiProperty({ description: 'The e-mail, the token name or `cli (<system user>)`.' }) label: string;
}

export class AuditEntryResource {
  @ApiProperty({ description: 'Increasing with time.' }) id: string;
  @ApiProperty(TIMESTAMP) at: string;
  @ApiProperty({ type: () => AuditActorResource }) actor: AuditActorResource;
  @ApiProperty({ enum: AUDIT_ACTIONS, enumName: 'AuditAction' }) action: AuditAction;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) app_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'What was changed: a notification id, a topic key, an e-mail...' }) target: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The request's peer address; null for the CLI." }) address: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'What else was said about it; never a secret.' }) details: Record<string, unknown>;
}

export class AuditPageMeta {
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class AuditPageResource {
  @ApiProperty({ type: () => [AuditEntryResource] }) data: AuditEntryResource[];
  @ApiProperty({ type: () => AuditPageMeta }) meta: AuditPageMeta;
}
