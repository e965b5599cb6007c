import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '../../auth/auth-context';
import { CurrentAuth, RequireAbilities } from '../../auth/auth.decorators';
import { ApiJsonBodyErrors, ApiNotFound } from '../../common/http/api-responses';
import { RequireTemplateRead } from '../../templates/template-read-access';
import { TOPIC_KEY_SCHEMA, TopicKeyPipe } from '../../topics/topic-key.pipe';
import { PreviewEnvelope, PreviewSendDto, PreviewTemplateDto } from './preview.dto';
import { PreviewService } from './preview.service';

/** docs/api.md#preview */
@ApiTags('notifications')
@Controller('api/v1')
export class PreviewController {
  constructor(private readonly previews: PreviewService) {}

  @Post('notifications/preview')
  @HttpCode(200)
  @RequireAbilities('notifications:send')
  @ApiOperation({
    summary: 'Preview a send',
    description: 'The message each platform would carry (for `installation_id`, as that installation would receive it), without sending. Checked as a send.',
  })
  @ApiOkResponse({ description: 'The messages.', type: PreviewEnvelope })
  @ApiJsonBodyErrors()
  async send(@CurrentAuth() auth: AuthContext, @Body() dto: PreviewSendDto) {
    return { data: await this.previews.send(auth.appId, dto) };
  }

  @Post('templates/:key/preview')
  @HttpCode(200)
  @RequireTemplateRead()
  @ApiParam({ name: 'key', description: 'The template key.', schema: TOPIC_KEY_SCHEMA, example: 'order_shipped' })
  @ApiOperation({
    summary: "Preview a template's latest version",
    description: "Rendered with `variables` (and the installation's, with `installation_id`), without sending.",
  })
  @ApiOkResponse({ description: 'The messages.', type: PreviewEnvelope })
  @ApiJsonBodyErrors()
  @ApiNotFound('No template with this key in the calling app.')
  async template(@CurrentAuth() auth: AuthContext, @Param('key', TopicKeyPipe) key: string, @Body() dto: PreviewTemplateDto) {
    return { data: await this.previews.template(auth.appId, key, dto) };
  }
}
