import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuditLog } from '../audit/audit-log.service';
import { Public } from '../auth/auth.decorators';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { ApiJsonBodyErrors, ApiNotFound } from '../common/http/api-responses';
import { InOpenApiDocument } from '../common/http/openapi';
import { isUuid } from '../common/uuid';
import type { Grant } from '../operators/operators.repository';
import { OperatorsService } from '../operators/operators.service';
import { peerAddress } from './admin.controller';
import { ADMIN_OPENAPI_DOCUMENT } from './admin-openapi';
import type { AdminSession } from './admin-session';
import { actorOf } from './admin-sessions.service';
import { AdminGuard, CurrentSession, NeedsRole, WithoutSession } from './admin.guard';
import {
  AcceptInvitationDto,
  AllowDomainDto,
  CreatedOperatorEnvelope,
  CreateOperatorDto,
  DOMAIN_PATTERN,
  DomainEnvelope,
  DomainList,
  GrantDto,
  InvitationEnvelope,
  OperatorEnvelope,
  OperatorList,
  SetGrantsDto,
} from './dto/operators.dto';

const OPERATOR = ApiParam({ name: 'id', format: 'uuid', description: 'The operator id.' });
const DOMAIN = ApiParam({ name: 'domain', description: 'An e-mail domain.', example: 'example.com' });
const NO_OPERATOR = 'No such operator.';

const grantsOf = (dtos: GrantDto[]): Grant[] => {
  const seen = new Set<string | null>();
  return dtos.map((g, index) => {
    const appId = g.app_id ?? null;
    if (seen.has(appId)) throw ValidationFailedError.of(`grants.${index}.app_id`, 'The grants must name each app once.');
    seen.add(appId);
    return { app_id: appId, role: g.role };
  });
};

/** Operator accounts (docs/api.md#271-operators): owners of every app manage them; anyone with an invitation sets a password. */
@InOpenApiDocument(ADMIN_OPENAPI_DOCUMENT)
@Public()
@UseGuards(AdminGuard)
@Controller('admin/api')
export class AdminOperatorsController {
  constructor(
    private readonly operators: OperatorsService,
    private readonly audit: AuditLog,
  ) {}

  @Get('operators')
  @NeedsRole('owner')
  @ApiOperation({ summary: 'Every operator', description: 'Oldest first, disabled ones too; never a password or a token.' })
  @ApiOkResponse({ description: 'Every operator.', type: OperatorList })
  async list(): Promise<OperatorList> {
    return { data: await this.operators.list() };
  }

  @Post('operators')
  @NeedsRole('owner')
  @ApiOperation({
    summary: 'Invite an operator',
    description: 'Creates the account with its roles and answers a one-time link (shown once) with which the operator sets a password.',
  })
  @ApiBody({ type: CreateOperatorDto })
  @ApiCreatedResponse({ description: 'Created.', type: CreatedOperatorEnvelope })
  @ApiJsonBodyErrors()
  async create(@Body() dto: CreateOperatorDto, @Req() req: Request, @CurrentSession() session: AdminSession): Promise<CreatedOperatorEnvelope> {
    const { operator, invitation } = await this.operators.create(dto.email, grantsOf(dto.grants));
    await this.audit.record(actorOf(session, peerAddress(req)), {
      action: 'operator.create',
      target: operator.email,
      details: { operator_id: operator.id, grants: operator.grants },
    });
    return { data: operator, invitation };
  }

  @Put('operators/:id/grants')
  @NeedsRole('owner')
  @ApiOperation({ summary: "Change an operator's roles", description: 'Replaces every grant of the operator.' })
  @OPERATOR
  @ApiBody({ type: SetGrantsDto })
  @ApiOkResponse({ description: 'The operator.', type: OperatorEnvelope })
  @ApiJsonBodyErrors()
  @ApiNotFound(NO_OPERATOR)
  async setGrants(@Param('id') id: string, @Body() dto: SetGrantsDto, @Req() req: Request, @CurrentSession() session: AdminSession): Promise<OperatorEnvelope> {
    const grants = grantsOf(dto.grants);
    const operator = isUuid(id) ? await this.operators.setGrants(id, grants) : null;
    if (!operator) throw new NotFoundError();
    await this.audit.record(actorOf(session, peerAddress(req)), { action: 'operator.update', target: operator.email, details: { operator_id: id, grants } });
    return { data: operator };
  }

  @Post('operators/:id/invitation')
  @NeedsRole('owner')
  @ApiOperation({
    summary: 'A new invitation link',
    description: 'For an operator who lost theirs, or to reset a password; earlier links keep working until they expire.',
  })
  @OPERATOR
  @ApiCreatedResponse({ description: 'The link, shown once.', type: InvitationEnvelope })
  @ApiNotFound(NO_OPERATOR)
  async invite(@Param('id') id: string, @Req() req: Request, @CurrentSession() session: AdminSession): Promise<InvitationEnvelope> {
    const operator = isUuid(id) ? await this.operators.find(id) : null;
    if (!operator || operator.disabled_at) throw new NotFoundError();
    const invitation = await this.operators.invite(id);
    await this.audit.record(actorOf(session, peerAddress(req)), { action: 'operator.invite', target: operator.email, details: { operator_id: id } });
    return { data: invitation };
  }

  @Post('operators/:id/disable')
  @NeedsRole('owner')
  @HttpCode(200)
  @ApiOperation({ summary: 'Disable an operator', description: 'At once: their sessions end, and they can no longer log in.' })
  @OPERATOR
  @ApiOkResponse({ description: 'The operator, `disabled_at` set.', type: OperatorEnvelope })
  @ApiNotFound(NO_OPERATOR)
  async disable(@Param('id') id: string, @Req() req: Request, @CurrentSession() session: AdminSession): Promise<OperatorEnvelope> {
    const operator = isUuid(id) ? await this.operators.disable(id) : null;
    if (!operator) throw new NotFoundError();
    await this.audit.record(actorOf(session, peerAddress(req)), { action: 'operator.disable', target: operator.email, details: { operator_id: id } });
    return { data: operator };
  }

  @Get('operator-domains')
  @NeedsRole('owner')
  @ApiOperation({
    summary: 'The e-mail domains OIDC admits',
    description: 'An unknown e-mail of one of them gets an account with its role on its first OIDC sign-in.',
  })
  @ApiOkResponse({ description: 'Every domain.', type: DomainList })
  async domains(): Promise<DomainList> {
    const rows = await this.operators.domains();
    return { data: rows.map((r) => ({ domain: r.domain, role: r.role, created_at: r.created_at.toISOString() })) };
  }

  @Put('operator-domains/:domain')
  @NeedsRole('owner')
  @ApiOperation({ summary: 'Admit an e-mail domain', description: 'Or change its role.' })
  @DOMAIN
  @ApiBody({ type: AllowDomainDto })
  @ApiOkResponse({ description: 'The domain.', type: DomainEnvelope })
  @ApiJsonBodyErrors()
  async allowDomain(
    @Param('domain') domain: string,
    @Body() dto: AllowDomainDto,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<DomainEnvelope> {
    if (!DOMAIN_PATTERN.test(domain)) throw ValidationFailedError.of('domain', 'The domain field must be a domain name.');
    await this.operators.allowDomain(domain, dto.role);
    await this.audit.record(actorOf(session, peerAddress(req)), { action: 'domain.allow', target: domain.toLowerCase(), details: { role: dto.role } });
    const row = (await this.operators.domains()).find((d) => d.domain === domain.toLowerCase())!;
    return { data: { domain: row.domain, role: row.role, created_at: row.created_at.toISOString() } };
  }

  @Delete('operator-domains/:domain')
  @NeedsRole('owner')
  @HttpCode(204)
  @ApiOperation({ summary: 'Stop admitting an e-mail domain', description: 'Operators it admitted keep their accounts.' })
  @DOMAIN
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiNotFound('No such domain.')
  async removeDomain(@Param('domain') domain: string, @Req() req: Request, @CurrentSession() session: AdminSession): Promise<void> {
    if (!(await this.operators.removeDomain(domain))) throw new NotFoundError();
    await this.audit.record(actorOf(session, peerAddress(req)), { action: 'domain.remove', target: domain.toLowerCase() });
  }

  /** Without a session: the invitation's token is the proof. */
  @Post('invitations/accept')
  @WithoutSession()
  @HttpCode(200)
  @ApiOperation({ summary: 'Accept an invitation', description: 'Sets the password of the invited operator; each link works once. Then log in.' })
  @ApiBody({ type: AcceptInvitationDto })
  @ApiOkResponse({ description: 'The operator.', type: OperatorEnvelope })
  @ApiJsonBodyErrors()
  async accept(@Body() dto: AcceptInvitationDto, @Req() req: Request): Promise<OperatorEnvelope> {
    const operator = await this.operators.acceptInvitation(dto.token, dto.password);
    await this.audit.record(
      { kind: 'operator', id: operator.id, label: operator.email, address: peerAddress(req) },
      { action: 'operator.accept', target: operator.email },
    );
    return { data: operator };
  }
}
