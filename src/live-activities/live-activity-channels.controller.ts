import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { AuthContext } from '../auth/auth-context';
import { CurrentAuth, RequireAbilities } from '../auth/auth.decorators';
import { ApiConflict, ApiJsonBodyErrors, ApiNotFound } from '../common/http/api-responses';
import { IdempotencyKey } from '../notifications/idempotency/idempotency-key.decorator';
import { CreateChannelDto, LiveActivityUpdateDto } from './dto/live-activity.dto';
import { BroadcastEnvelope, ChannelEnvelope, ChannelList } from './dto/live-activity-response.dto';
import { LiveActivityChannelsService } from './live-activity-channels.service';

const NOT_FOUND = 'No channel with this id in the calling app.';
const REFUSED = 'APNs refused the request (its reason is in the message), or the app has no APNs credentials.';

/** iOS 18 broadcast channels (docs/api.md#live-activity-channels). */
@ApiTags('live-activities')
@Controller('api/v1/live-activity-channels')
export class LiveActivityChannelsController {
  constructor(private readonly channels: LiveActivityChannelsService) {}

  @Post()
  @HttpCode(201)
  @RequireAbilities('notifications:send')
  @ApiOperation({ summary: 'Create a broadcast channel', description: "Created at APNs' channel management API; its id is APNs' channel id." })
  @ApiBody({ type: CreateChannelDto })
  @ApiCreatedResponse({ description: 'Created.', type: ChannelEnvelope })
  @ApiJsonBodyErrors()
  @ApiConflict(REFUSED, 'APNs did not create the channel: TopicDisallowed.')
  async create(@CurrentAuth() auth: AuthContext, @Body() dto: CreateChannelDto) {
    return { data: await this.channels.create(auth.appId, dto.storage) };
  }

  @Get()
  @RequireAbilities('notifications:read')
  @ApiOperation({ summary: 'List the broadcast channels', description: 'The channels the app created here, newest first.' })
  @ApiOkResponse({ description: 'Every channel.', type: ChannelList })
  async list(@CurrentAuth() auth: AuthContext) {
    return { data: await this.channels.list(auth.appId) };
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireAbilities('notifications:send')
  @ApiOperation({ summary: 'Delete a broadcast channel', description: 'Deleted at APNs too; activities listening to it get no more updates.' })
  @ApiParam({ name: 'id', description: "APNs' channel id." })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiNotFound(NOT_FOUND)
  @ApiConflict(REFUSED, 'APNs did not delete the channel: BadChannelId.')
  async remove(@CurrentAuth() auth: AuthContext, @Param('id') id: string) {
    await this.channels.remove(auth.appId, id);
  }

  @Post(':id/updates')
  @HttpCode(202)
  @RequireAbilities('notifications:send')
  @ApiOperation({
    summary: 'Broadcast an update to a channel',
    description:
      "The activity update body (docs/api.md#live-activity-updates), stored and queued; the worker sends it to APNs' broadcast endpoint, " +
      'retrying 429 and 5xx answers as for sends. `status` is `pending` until APNs accepts it (`accepted`) or it fails (`failed`, with the reason).',
  })
  @ApiParam({ name: 'id', description: "APNs' channel id." })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'As for sends (docs/api.md#idempotency): the same key with the same body to the same channel answers as the first time and broadcasts nothing again.',
    schema: { type: 'string', minLength: 1, maxLength: 255, example: 'match-42-goal-3' },
  })
  @ApiBody({ type: LiveActivityUpdateDto })
  @ApiAcceptedResponse({
    description: 'Accepted: stored and queued.',
    type: BroadcastEnvelope,
    headers: {
      'Idempotent-Replayed': {
        description: '`true` when this is the stored answer to an earlier request with the same key.',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  })
  @ApiJsonBodyErrors()
  @ApiNotFound(NOT_FOUND)
  @ApiConflict(
    'The Idempotency-Key was used with a different body, or its first request is still running.',
    'This idempotency key was already used with a different request.',
  )
  async broadcast(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: LiveActivityUpdateDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    const result = await this.channels.broadcast(auth.appId, id, dto, req.body, idempotencyKey);
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.type('application/json');
    return result.body;
  }

  @Get(':id/updates/:broadcastId')
  @RequireAbilities('notifications:read')
  @ApiOperation({ summary: 'Read a broadcast', description: 'Its status: `pending` until APNs answers for good, then `accepted` or `failed`.' })
  @ApiParam({ name: 'id', description: "APNs' channel id." })
  @ApiParam({ name: 'broadcastId', format: 'uuid', description: 'The broadcast id the POST returned.' })
  @ApiOkResponse({ description: 'The broadcast.', type: BroadcastEnvelope })
  @ApiNotFound('No such broadcast to this channel in the calling app.')
  async findBroadcast(@CurrentAuth() auth: AuthContext, @Param('id') id: string, @Param('broadcastId') broadcastId: string) {
    return { data: await this.channels.findBroadcast(auth.appId, id, broadcastId) };
  }
}
