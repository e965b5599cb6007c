import { Body, Controller, Get, HttpCode, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiServiceUnavailableResponse, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { Public } from '../../auth/auth.decorators';
import { AudienceTimedOutError } from '../../common/errors';
import { ApiJsonBodyErrors, ApiNotFound, ErrorResponse } from '../../common/http/api-responses';
import { clientGone } from '../../common/http/client-gone';
import { InOpenApiDocument } from '../../common/http/openapi';
import { AudienceCountEnvelope, CountAudienceDto } from '../../notifications/dto/count-audience.dto';
import { AudiencesService } from '../../notifications/audiences/audiences.service';
import { PreviewEnvelope, PreviewSendDto } from '../../notifications/preview/preview.dto';
import { PreviewService } from '../../notifications/preview/preview.service';
import { TemplateListEnvelope } from '../../templates/dto/template.dto';
import { TemplatesService } from '../../templates/templates.service';
import { ADMIN_OPENAPI_DOCUMENT } from '../admin-openapi';
import { AdminGuard, NeedsRole } from '../admin.guard';
import { AdminService } from '../admin.service';

const APP = ApiParam({ name: 'app', format: 'uuid', description: 'The app id.' });

/** What the dashboard's composer asks besides the send itself (docs/operations.md "Operator dashboard"). */
@InOpenApiDocument(ADMIN_OPENAPI_DOCUMENT)
@Public()
@UseGuards(AdminGuard)
@Controller('admin/api')
export class ComposerController {
  constructor(
    private readonly admin: AdminService,
    private readonly audiences: AudiencesService,
    private readonly templates: TemplatesService,
    private readonly previews: PreviewService,
  ) {}

  /** The live count the composer shows while the audience is built: the API's count (docs/api.md#count-an-audience). */
  @Post('apps/:app/audiences/count')
  @NeedsRole('viewer')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Count an audience',
    description: 'As `POST /api/v1/audiences/count` (docs/api.md#count-an-audience): any recipients kind, validated as a send’s.',
  })
  @APP
  @ApiBody({ type: CountAudienceDto })
  @ApiOkResponse({ description: 'The count.', type: AudienceCountEnvelope })
  @ApiJsonBodyErrors()
  @ApiNotFound('No such app.')
  @ApiServiceUnavailableResponse({
    description: 'The count ran past AUDIENCE_STATEMENT_TIMEOUT_MS (docs/api.md#count-an-audience).',
    type: ErrorResponse,
    example: { message: new AudienceTimedOutError(10000).message },
  })
  @ApiTooManyRequestsResponse({
    description: 'AUDIENCE_CONCURRENCY_PER_APP counts of this app, or AUDIENCE_CONCURRENCY in all, are running in this api (docs/api.md#count-an-audience).',
    type: ErrorResponse,
    example: { message: 'Too Many Attempts.' },
    headers: { 'Retry-After': { description: 'Seconds until a count may be asked again.', schema: { type: 'integer' } } },
  })
  async countAudience(@Param('app') appId: string, @Body() dto: CountAudienceDto, @Res({ passthrough: true }) res: Response): Promise<AudienceCountEnvelope> {
    await this.admin.app(appId);
    // The composer asks again as the audience changes and drops the older question: its statement stops.
    return { data: await this.audiences.count(appId, dto.recipients, clientGone(res)) };
  }

  /** The templates the composer offers (docs/api.md#templates): each at its latest version. */
  @Get('apps/:app/templates')
  @NeedsRole('viewer')
  @ApiOperation({ summary: "An app's templates", description: 'As `GET /api/v1/templates` (docs/api.md#templates): each at its latest version, by key.' })
  @APP
  @ApiOkResponse({ description: 'Every template of the app.', type: TemplateListEnvelope })
  @ApiNotFound('No such app.')
  async templateList(@Param('app') appId: string): Promise<TemplateListEnvelope> {
    await this.admin.app(appId);
    return { data: await this.templates.list(appId), meta: { next_cursor: null } };
  }

  /** The composer's preview for a chosen installation: the API's (docs/api.md#preview), without sending. */
  @Post('apps/:app/notifications/preview')
  @NeedsRole('viewer')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Preview a send',
    description: 'As `POST /api/v1/notifications/preview` (docs/api.md#preview): the message each platform would carry, for `installation_id` if given.',
  })
  @APP
  @ApiBody({ type: PreviewSendDto })
  @ApiOkResponse({ description: 'The messages.', type: PreviewEnvelope })
  @ApiJsonBodyErrors()
  @ApiNotFound('No such app.')
  async preview(@Param('app') appId: string, @Body() dto: PreviewSendDto): Promise<PreviewEnvelope> {
    await this.admin.app(appId);
    return { data: await this.previews.send(appId, dto) };
  }
}
