import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Req, Res } from '@nestjs/common';
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
import { ApiConflict, ApiJsonBodyErrors, ApiNotFound, ApiValidationErrors } from '../common/http/api-responses';
import { IdempotencyKey } from '../notifications/idempotency/idempotency-key.decorator';
import { LiveActivityUpdateDto, RegisterLiveActivityDto } from './dto/live-activity.dto';
import { LiveActivityEnvelope, LiveActivityUpdateEnvelope } from './dto/live-activity-response.dto';
import { ACTIVITY_ID_SCHEMA, ActivityIdPipe } from './activity-id.pipe';
import { ENDED_MESSAGE, LiveActivitiesService } from './live-activities.service';

const NOT_FOUND = 'No live activity with this id in the calling app.';

const UPDATE_EXAMPLES = {
  update: { summary: 'New content state', value: { event: 'update', content_state: { status: 'out_for_delivery', eta_minutes: 5 } } },
  alert: {
    summary: 'With an alert, at high priority',
    value: {
      event: 'update',
      content_state: { status: 'arriving', eta_minutes: 1 },
      alert: { title: 'Almost there', body: 'Your driver is a minute away.', sound: 'default' },
      priority: 'high',
    },
  },
  end: {
    summary: 'End, leaving it on the Lock Screen for a while',
    value: { event: 'end', content_state: { status: 'delivered', eta_minutes: 0 }, dismissal_date: '2026-11-22T11:00:00.000Z' },
  },
};

@ApiTags('live-activities')
@ApiParam({ name: 'activityId', description: "Your activity's id (ActivityKit's `Activity.id`): 1 to 255 characters.", schema: ACTIVITY_ID_SCHEMA })
@Controller('api/v1/live-activities')
export class LiveActivitiesController {
  constructor(private readonly activities: LiveActivitiesService) {}

  @Put(':activityId')
  @RequireAbilities('installations:write')
  @ApiOperation({
    summary: 'Record a running Live Activity',
    description:
      'The app calls it when it starts an activity, and again with each new update token (`Activity.pushTokenUpdates`). Creates (201) or refreshes (200) it; a new token revives an ended one. The token is write-only.',
  })
  @ApiBody({ type: RegisterLiveActivityDto })
  @ApiCreatedResponse({ description: 'Created.', type: LiveActivityEnvelope })
  @ApiOkResponse({ description: 'It existed and was refreshed.', type: LiveActivityEnvelope })
  @ApiJsonBodyErrors()
  async register(
    @CurrentAuth() auth: AuthContext,
    @Param('activityId', ActivityIdPipe) activityId: string,
    @Body() dto: RegisterLiveActivityDto,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { created, activity } = await this.activities.register(auth.appId, activityId, dto);
    res.status(created ? 201 : 200);
    return { data: activity };
  }

  @Get(':activityId')
  @RequireAbilities('installations:read')
  @ApiOperation({ summary: 'Read a Live Activity' })
  @ApiOkResponse({ description: 'The activity.', type: LiveActivityEnvelope })
  @ApiValidationErrors('The activity id is longer than 255 characters.')
  @ApiNotFound(NOT_FOUND)
  async find(@CurrentAuth() auth: AuthContext, @Param('activityId', ActivityIdPipe) activityId: string) {
    return { data: await this.activities.find(auth.appId, activityId) };
  }

  @Delete(':activityId')
  @HttpCode(204)
  @RequireAbilities('installations:write')
  @ApiOperation({
    summary: 'End a Live Activity',
    description: 'It is `ended` from now on: updates not yet sent are skipped (`ActivityEnded`), new ones are a 409.',
  })
  @ApiNoContentResponse({ description: 'Ended.' })
  @ApiValidationErrors('The activity id is longer than 255 characters.')
  @ApiNotFound(NOT_FOUND)
  async remove(@CurrentAuth() auth: AuthContext, @Param('activityId', ActivityIdPipe) activityId: string) {
    await this.activities.end(auth.appId, activityId);
  }

  @Post(':activityId/updates')
  @HttpCode(202)
  @RequireAbilities('notifications:send')
  @ApiOperation({
    summary: 'Update or end a Live Activity',
    description:
      'Sent to APNs at once, `aps.timestamp` being the second it was accepted. Updates are sent in the order they were accepted: one older than an ' +
      'update APNs already accepted is never sent (`skipped`, reason `Superseded`), also across retries and workers. An `end` ends the activity once APNs accepts it.',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'As for sends (docs/api.md#idempotency): the same key with the same body answers as the first time and sends nothing again.',
    schema: { type: 'string', minLength: 1, maxLength: 255, example: 'order-42-eta-5' },
  })
  @ApiBody({ type: LiveActivityUpdateDto, examples: UPDATE_EXAMPLES })
  @ApiAcceptedResponse({
    description: 'Accepted: stored and queued.',
    type: LiveActivityUpdateEnvelope,
    headers: {
      'Idempotent-Replayed': {
        description: '`true` when this is the stored answer to an earlier request with the same key.',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  })
  @ApiJsonBodyErrors()
  @ApiNotFound(NOT_FOUND)
  @ApiConflict('The activity has ended, or the Idempotency-Key was used with a different body or its first request is still running.', ENDED_MESSAGE)
  async update(
    @CurrentAuth() auth: AuthContext,
    @Param('activityId', ActivityIdPipe) activityId: string,
    @Body() dto: LiveActivityUpdateDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    const result = await this.activities.update(auth.appId, activityId, dto, req.body, idempotencyKey);
    res.status(result.status);
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.type('application/json');
    return result.body;
  }

  @Get(':activityId/updates/:id')
  @RequireAbilities('notifications:read')
  @ApiOperation({ summary: 'Read a Live Activity update', description: 'Its status: `pending` until APNs answers, then `accepted`, `failed` or `skipped`.' })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The update id the POST returned.' })
  @ApiOkResponse({ description: 'The update.', type: LiveActivityUpdateEnvelope })
  @ApiNotFound('No such update of this activity in the calling app.')
  async findUpdate(@CurrentAuth() auth: AuthContext, @Param('activityId', ActivityIdPipe) activityId: string, @Param('id') id: string) {
    return { data: await this.activities.findUpdate(auth.appId, activityId, id) };
  }
}
