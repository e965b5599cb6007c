import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '../auth/auth-context';
import { CurrentAuth, RequireAbilities } from '../auth/auth.decorators';
import { ApiConflict, ApiJsonBodyErrors, ApiNotFound } from '../common/http/api-responses';
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
      "The activity update body (docs/api.md#live-activity-updates), sent at once to APNs' broadcast endpoint; the answer says what APNs made of it.",
  })
  @ApiParam({ name: 'id', description: "APNs' channel id." })
  @ApiBody({ type: LiveActivityUpdateDto })
  @ApiAcceptedResponse({ description: "Sent; `status` is APNs' answer.", type: BroadcastEnvelope })
  @ApiJsonBodyErrors()
  @ApiNotFound(NOT_FOUND)
  async broadcast(@CurrentAuth() auth: AuthContext, @Param('id') id: string, @Body() dto: LiveActivityUpdateDto) {
    return { data: await this.channels.broadcast(auth.appId, id, dto) };
  }
}
