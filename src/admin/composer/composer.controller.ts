import { Body, Controller, HttpCode, Param, Post, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import { Public } from '../../auth/auth.decorators';
import { AudienceTimedOutError } from '../../common/errors';
import { ApiJsonBodyErrors, ApiNotFound, ErrorResponse } from '../../common/http/api-responses';
import { clientGone } from '../../common/http/client-gone';
import { InOpenApiDocument } from '../../common/http/openapi';
import { AudienceCountEnvelope, CountAudienceDto } from '../../notifications/dto/count-audience.dto';
import { AudiencesService } from '../../notifications/audiences/audiences.service';
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
  async countAudience(@Param('app') appId: string, @Body() dto: CountAudienceDto, @Res({ passthrough: true }) res: Response): Promise<AudienceCountEnvelope> {
    await this.admin.app(appId);
    // The composer asks again as the audience changes and drops the older question: its statement stops.
    return { data: await this.audiences.count(appId, dto.recipients, clientGone(res)) };
  }
}
