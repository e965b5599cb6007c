import { Body, Controller, Delete, Get, HttpCode, Param, Put, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AuthContext } from '../auth/auth-context';
import { CurrentAuth, RequireAbilities } from '../auth/auth.decorators';
import { NotFoundError } from '../common/errors';
import { ApiJsonBodyErrors, ApiNotFound, ApiValidationErrors } from '../common/http/api-responses';
import { TOPIC_KEY_SCHEMA, TopicKeyPipe } from '../topics/topic-key.pipe';
import { PutTemplateDto, TemplateEnvelope, TemplateListEnvelope } from './dto/template.dto';
import { RequireTemplateRead } from './template-read-access';
import { TemplatesService } from './templates.service';

const NOT_FOUND = 'No template with this key (or version) in the calling app.';
const KEY_PARAM = ApiParam({
  name: 'key',
  description: "The template key: 1 to 64 of a-z 0-9 _ -, as a topic's.",
  schema: TOPIC_KEY_SCHEMA,
  example: 'order_shipped',
});

/** docs/api.md#templates */
@ApiTags('templates')
@Controller('api/v1/templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Put(':key')
  @RequireAbilities('templates:write')
  @KEY_PARAM
  @ApiOperation({
    summary: 'Create or change a template',
    description:
      'Each text must parse as Liquid and fit the payload limits unrendered (a 422 at its path). A change makes a new version; the same content again changes nothing.',
  })
  @ApiCreatedResponse({ description: 'Created: version 1.', type: TemplateEnvelope })
  @ApiOkResponse({ description: 'It existed: its latest version, new if anything changed.', type: TemplateEnvelope })
  @ApiJsonBodyErrors()
  async put(@CurrentAuth() auth: AuthContext, @Param('key', TopicKeyPipe) key: string, @Body() dto: PutTemplateDto, @Res({ passthrough: true }) res: Response) {
    const { created, template } = await this.templates.put(auth.appId, key, dto);
    res.status(created ? 201 : 200);
    return { data: template };
  }

  @Get()
  @RequireTemplateRead()
  @ApiOperation({ summary: "The app's templates", description: 'Each at its latest version, by key.' })
  @ApiOkResponse({ description: 'Every template of the app.', type: TemplateListEnvelope })
  async list(@CurrentAuth() auth: AuthContext) {
    return { data: await this.templates.list(auth.appId), meta: { next_cursor: null } };
  }

  @Get(':key')
  @RequireTemplateRead()
  @KEY_PARAM
  @ApiOperation({ summary: 'Read a template (its latest version)' })
  @ApiOkResponse({ description: 'The latest version.', type: TemplateEnvelope })
  @ApiValidationErrors('The key is not a template key.')
  @ApiNotFound(NOT_FOUND)
  async find(@CurrentAuth() auth: AuthContext, @Param('key', TopicKeyPipe) key: string) {
    return { data: await this.templates.find(auth.appId, key) };
  }

  @Get(':key/versions/:version')
  @RequireTemplateRead()
  @KEY_PARAM
  @ApiParam({ name: 'version', description: 'A version number: 1, 2, ...', schema: { type: 'integer', minimum: 1 }, example: 1 })
  @ApiOperation({ summary: 'Read one version of a template' })
  @ApiOkResponse({ description: 'That version.', type: TemplateEnvelope })
  @ApiValidationErrors('The key is not a template key.')
  @ApiNotFound(NOT_FOUND)
  async version(@CurrentAuth() auth: AuthContext, @Param('key', TopicKeyPipe) key: string, @Param('version') version: string) {
    // Anything but a version number names no version.
    if (!/^[1-9]\d{0,8}$/.test(version)) throw new NotFoundError();
    return { data: await this.templates.find(auth.appId, key, Number(version)) };
  }

  @Delete(':key')
  @HttpCode(204)
  @RequireAbilities('templates:write')
  @KEY_PARAM
  @ApiOperation({ summary: 'Delete a template', description: 'With every version; sends made from it keep their texts, later sends naming it are a 422.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiValidationErrors('The key is not a template key.')
  @ApiNotFound(NOT_FOUND)
  async remove(@CurrentAuth() auth: AuthContext, @Param('key', TopicKeyPipe) key: string) {
    await this.templates.remove(auth.appId, key);
  }
}
