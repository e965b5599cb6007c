import { Controller, Delete, Get, HttpCode, Param, Query, Req, UseGuards } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuditLog } from '../audit/audit-log.service';
import { AuditLogQueryDto, AuditPageResource } from '../audit/dto/audit-log.dto';
import { Public } from '../auth/auth.decorators';
import { NotFoundError } from '../common/errors';
import { ApiNotFound, ApiValidationErrors } from '../common/http/api-responses';
import { InOpenApiDocument } from '../common/http/openapi';
import { isUuid } from '../common/uuid';
import { OperatorsRepository } from '../operators/operators.repository';
import { appsReached } from '../operators/roles';
import { peerAddress } from './admin.controller';
import { ADMIN_OPENAPI_DOCUMENT } from './admin-openapi';
import type { AdminSession } from './admin-session';
import { actorOf } from './admin-sessions.service';
import { AdminGuard, CurrentSession, NeedsRole, RoleOnSomeApp } from './admin.guard';
import { OperatorSessionList } from './dto/operators.dto';

/** What every operator may do about themselves (their sessions), and the audit log for owners (docs/api.md#275-audit-log). */
@InOpenApiDocument(ADMIN_OPENAPI_DOCUMENT)
@Public()
@UseGuards(AdminGuard)
@Controller('admin/api')
export class AdminAccountController {
  constructor(
    private readonly operators: OperatorsRepository,
    private readonly audit: AuditLog,
  ) {}

  @Get('sessions')
  @NeedsRole('viewer')
  @RoleOnSomeApp()
  @ApiOperation({ summary: 'My sessions', description: "The signed-in operator's live sessions, newest first (at most 100)." })
  @ApiOkResponse({ description: 'The sessions.', type: OperatorSessionList })
  async sessions(@CurrentSession() session: AdminSession): Promise<OperatorSessionList> {
    const rows = await this.operators.sessions(session.operator.id);
    return {
      data: rows.map((r) => ({
        id: r.id,
        method: r.method,
        address: r.address,
        user_agent: r.user_agent,
        created_at: r.created_at.toISOString(),
        expires_at: r.expires_at.toISOString(),
        current: r.id === session.id,
      })),
    };
  }

  @Delete('sessions/:id')
  @NeedsRole('viewer')
  @RoleOnSomeApp()
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke one of my sessions', description: 'Its cookie stops working at once, in every api process.' })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The session id.' })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiNotFound('No live session of yours with this id.')
  async revoke(@Param('id') id: string, @Req() req: Request, @CurrentSession() session: AdminSession): Promise<void> {
    if (!isUuid(id) || !(await this.operators.revokeSession(id, session.operator.id))) throw new NotFoundError();
    await this.audit.record(actorOf(session, peerAddress(req)), { action: 'session.revoke', target: session.operator.email, details: { session_id: id } });
  }

  @Get('audit-log')
  @NeedsRole('owner')
  @RoleOnSomeApp()
  @ApiOperation({
    summary: 'The audit log',
    description:
      "Newest first, filtered. An owner of every app sees every entry; an owner of some apps sees those apps' entries only (not logins or operators).",
  })
  @ApiOkResponse({ description: 'One page.', type: AuditPageResource })
  @ApiValidationErrors('A bad filter, `cursor` or `limit`.')
  auditLog(@Query() query: AuditLogQueryDto, @CurrentSession() session: AdminSession): Promise<AuditPageResource> {
    const apps = appsReached(session.operator.grants, 'owner');
    return this.audit.list({
      actor: query.actor,
      action: query.action,
      appId: query.app_id,
      apps: apps ?? undefined,
      withoutApp: apps === null,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      cursor: query.cursor,
      limit: query.limit === undefined ? 50 : Number(query.limit),
    });
  }
}
