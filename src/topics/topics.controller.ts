import { Body, Controller, Delete, Get, HttpCode, Param, Put, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { AuthContext } from '../auth/auth-context';
import { CurrentAuth, RequireAbilities } from '../auth/auth.decorators';
import { ApiJsonBodyErrors, ApiNotFound, ApiValidationErrors } from '../common/http/api-responses';
import { PutTopicDto, TopicEnvelope, TopicListEnvelope } from './dto/topic.dto';
import { TOPIC_KEY_SCHEMA, TopicKeyPipe } from './topic-key.pipe';
import { TopicsService } from './topics.service';

const NOT_FOUND = 'No topic with this key in the calling app.';
const KEY_PARAM = ApiParam({ name: 'key', description: 'The topic key: 1 to 64 of a-z 0-9 _ -.', schema: TOPIC_KEY_SCHEMA, example: 'promotions' });

/** docs/api.md#topics */
@ApiTags('topics')
@Controller('api/v1/topics')
export class TopicsController {
  constructor(private readonly topics: TopicsService) {}

  @Put(':key')
  @RequireAbilities('topics:write')
  @KEY_PARAM
  @ApiOperation({ summary: 'Create or replace a topic', description: 'At most 100 topics per app (a 422 on `key` past it).' })
  @ApiCreatedResponse({ description: 'Created.', type: TopicEnvelope })
  @ApiOkResponse({ description: 'It existed and was replaced.', type: TopicEnvelope })
  @ApiJsonBodyErrors()
  async put(@CurrentAuth() auth: AuthContext, @Param('key', TopicKeyPipe) key: string, @Body() dto: PutTopicDto, @Res({ passthrough: true }) res: Response) {
    const { created, topic } = await this.topics.put(auth.appId, key, dto);
    res.status(created ? 201 : 200);
    return { data: topic };
  }

  @Get()
  @RequireAbilities()
  @ApiOperation({ summary: "The app's topics", description: 'By key; any valid token of the app may list them (a client shows them to its user).' })
  @ApiOkResponse({ description: 'Every topic of the app.', type: TopicListEnvelope })
  async list(@CurrentAuth() auth: AuthContext) {
    return { data: await this.topics.list(auth.appId), meta: { next_cursor: null } };
  }

  @Get(':key')
  @RequireAbilities('topics:write')
  @KEY_PARAM
  @ApiOperation({ summary: 'Read a topic' })
  @ApiOkResponse({ description: 'The topic.', type: TopicEnvelope })
  @ApiValidationErrors('The key is not a topic key.')
  @ApiNotFound(NOT_FOUND)
  async find(@CurrentAuth() auth: AuthContext, @Param('key', TopicKeyPipe) key: string) {
    return { data: await this.topics.find(auth.appId, key) };
  }

  @Delete(':key')
  @HttpCode(204)
  @RequireAbilities('topics:write')
  @KEY_PARAM
  @ApiOperation({ summary: 'Delete a topic', description: "The users' choices for it go with it; sends naming it later are a 422." })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiValidationErrors('The key is not a topic key.')
  @ApiNotFound(NOT_FOUND)
  async remove(@CurrentAuth() auth: AuthContext, @Param('key', TopicKeyPipe) key: string) {
    await this.topics.remove(auth.appId, key);
  }
}
