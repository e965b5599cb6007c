import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '../auth/auth-context';
import { CurrentAuth, RequireAbilities } from '../auth/auth.decorators';
import { ApiValidationErrors } from '../common/http/api-responses';
import { AuditLog } from './audit-log.service';
import { AuditLogQueryDto, AuditPageResource } from './dto/audit-log.dto';

/** The audit log of the token's app (docs/api.md#275-audit-log). */
@ApiTags('audit-log')
@Controller('api/v1/audit-log')
export class AuditController {
  constructor(private readonly audit: AuditLog) {}

  @Get()
  @RequireAbilities('audit:read')
  @ApiOperation({
    summary: "The app's audit log",
    description: "Changes to the token's app by operators and the CLI, newest first, filtered; `app_id` may only name the token's app.",
  })
  @ApiOkResponse({ description: 'One page.', type: AuditPageResource })
  @ApiValidationErrors('A bad filter, `cursor` or `limit`.')
  list(@Query() query: AuditLogQueryDto, @CurrentAuth() auth: AuthContext): Promise<AuditPageResource> {
    return this.audit.list({
      actor: query.actor,
      action: query.action,
      appId: query.app_id,
      apps: [auth.appId],
      withoutApp: false,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      cursor: query.cursor,
      limit: query.limit === undefined ? 50 : Number(query.limit),
    });
  }
}
