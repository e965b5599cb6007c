import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Optional, Required } from '../../common/validation/framework';
import { In, NestedList, Str } from '../../common/validation/rules';
import { OPERATOR_ROLES, type OperatorRole } from '../../common/vocabulary';
import { OperatorGrantResource } from './admin-responses.dto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@:]{1,64}@[^\s@:]{1,253}$/;
const DOMAIN = /^[a-z0-9.-]{1,253}\.[a-z]{2,63}$/i;
const TIMESTAMP = { type: String, format: 'date-time', example: '2026-11-22T10:00:00.000Z' } as const;

/** A role for one app, or (no `app_id`, or null) for every app. */
export class GrantDto {
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'The app; absent or null for every app.' })
  @Optional()
  @Str({ pattern: UUID, patternMessage: 'The :attribute field must be a valid UUID.' })
  app_id?: string | null;

  @ApiProperty({ enum: OPERATOR_ROLES, enumName: 'OperatorRole' })
  @Required()
  @In(OPERATOR_ROLES)
  role: OperatorRole;
}

export class CreateOperatorDto {
  @ApiProperty({ example: 'ana@example.com' })
  @Required()
  @Str({ min: 3, max: 320, pattern: EMAIL, patternMessage: 'The :attribute field must be a valid e-mail address.' })
  email: string;

  @Required()
  @NestedList(() => GrantDto, { min: 1, max: 100 })
  grants: GrantDto[];
}

export class SetGrantsDto {
  @Required()
  @NestedList(() => GrantDto, { min: 1, max: 100 })
  grants: GrantDto[];
}

export class AcceptInvitationDto {
  @ApiProperty({ description: 'The part of the invitation link after `#`.' })
  @Required()
  @Str({ min: 1, max: 100 })
  token: string;

  @ApiProperty({ description: 'The new password: 12 to 200 characters.' })
  @Required()
  @Str({ min: 12, max: 200 })
  password: string;
}

export class AllowDomainDto {
  @ApiProperty({ enum: OPERATOR_ROLES, enumName: 'OperatorRole', description: 'The role, for every app, of an operator this domain admits.' })
  @Required()
  @In(OPERATOR_ROLES)
  role: OperatorRole;
}

export const DOMAIN_PATTERN = DOMAIN;

export class OperatorResourceDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'ana@example.com' }) email: string;
  @ApiProperty({ type: () => [OperatorGrantResource] }) grants: OperatorGrantResource[];
  @ApiProperty({ description: 'The ADMIN_USER login.' }) bootstrap: boolean;
  @ApiProperty({ description: 'Whether a password was set (an invitation accepted); OIDC operators need none.' }) password_set: boolean;
  @ApiProperty({ ...TIMESTAMP, nullable: true }) disabled_at: string | null;
  @ApiProperty(TIMESTAMP) created_at: string;
}

export class OperatorEnvelope {
  @ApiProperty({ type: () => OperatorResourceDto }) data: OperatorResourceDto;
}

export class OperatorList {
  @ApiProperty({ type: () => [OperatorResourceDto] }) data: OperatorResourceDto[];
}

export class InvitationResource {
  @ApiProperty({ description: 'The one-time link, without the origin: `/admin/invitation#<token>`. Shown once; good for 7 days.' }) link: string;
  @ApiProperty(TIMESTAMP) expires_at: string;
}

export class CreatedOperatorEnvelope {
  @ApiProperty({ type: () => OperatorResourceDto }) data: OperatorResourceDto;
  @ApiProperty({ type: () => InvitationResource }) invitation: InvitationResource;
}

export class InvitationEnvelope {
  @ApiProperty({ type: () => InvitationResource }) data: InvitationResource;
}

export class DomainResource {
  @ApiProperty({ example: 'example.com' }) domain: string;
  @ApiProperty({ enum: OPERATOR_ROLES, enumName: 'OperatorRole' }) role: OperatorRole;
  @ApiProperty(TIMESTAMP) created_at: string;
}

export class DomainList {
  @ApiProperty({ type: () => [DomainResource] }) data: DomainResource[];
}

export class DomainEnvelope {
  @ApiProperty({ type: () => DomainResource }) data: DomainResource;
}

export class OperatorSessionResource {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['password', 'oidc'] }) method: string;
  @ApiProperty({ type: String, nullable: true, description: 'The address it was opened from.' }) address: string | null;
  @ApiProperty({ type: String, nullable: true }) user_agent: string | null;
  @ApiProperty(TIMESTAMP) created_at: string;
  @ApiProperty(TIMESTAMP) expires_at: string;
  @ApiProperty({ description: 'The session of this request.' }) current: boolean;
}

export class OperatorSessionList {
  @ApiProperty({ type: () => [OperatorSessionResource] }) data: OperatorSessionResource[];
}
