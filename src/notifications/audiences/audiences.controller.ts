import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AuthContext } from '../../auth/auth-context';
import { CurrentAuth, RequireAbilities } from '../../auth/auth.decorators';
import { AudienceTimedOutError } from '../../common/errors';
import { ApiJsonBodyErrors, ErrorResponse } from '../../common/http/api-responses';
import { clientGone } from '../../common/http/client-gone';
import { AudiencesService } from './audiences.service';
import { AudienceCountEnvelope, CountAudienceDto } from '../dto/count-audience.dto';

/** What Swagger UI pre-fills; a valid request as it stands. */
const COUNT_EXAMPLES = {
  filter: {
    summary: 'Android users on 4.2 or later who speak French',
    value: {
      recipients: {
        filter: {
          and: [
            { field: 'platform', op: 'eq', value: 'android' },
            { field: 'app_version', op: 'gte', value: '4.2' },
            { field: 'language', op: 'eq', value: 'fr' },
          ],
        },
      },
    },
  },
  tags: { summary: 'Installations tagged beta', value: { recipients: { tags: ['beta'] } } },
};

@ApiTags('audiences')
@Controller('api/v1/audiences')
export class AudiencesController {
  constructor(private readonly audiences: AudiencesService) {}

  @Post('count')
  @HttpCode(200)
  @RequireAbilities('notifications:send')
  @ApiOperation({
    summary: 'Count an audience',
    description:
      'How many installations a send to these recipients would consider now, how many of them it could deliver to, their users and platforms. ' +
      'Also 429 with Retry-After when AUDIENCE_CONCURRENCY_PER_APP counts of the app, or AUDIENCE_CONCURRENCY in all, run in this api (docs/api.md#count-an-audience).',
  })
  @ApiBody({ type: CountAudienceDto, examples: COUNT_EXAMPLES })
  @ApiOkResponse({ type: AudienceCountEnvelope })
  @ApiJsonBodyErrors()
  @ApiServiceUnavailableResponse({
    description: 'The count ran past AUDIENCE_STATEMENT_TIMEOUT_MS (docs/api.md#count-an-audience), or the database is unreachable.',
    type: ErrorResponse,
    example: { message: new AudienceTimedOutError(10000).message },
  })
  async count(@CurrentAuth() auth: AuthContext, @Body() dto: CountAudienceDto, @Res({ passthrough: true }) res: Response): Promise<AudienceCountEnvelope> {
    return { data: await this.audiences.count(auth.appId, dto.recipients, clientGone(res)) };
  }
}
