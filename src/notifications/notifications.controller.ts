import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { AuthContext } from '../auth/auth-context';
import { CurrentAuth, RequireAbilities } from '../auth/auth.decorators';
import { ApiConflict, ApiJsonBodyErrors, ApiNotFound, ApiValidationErrors } from '../common/http/api-responses';
import { EmptyBodyPipe } from '../common/validation/empty-body.pipe';
import { DeliveryTraceService, TRACE_SCAN_ROWS } from './trace/delivery-trace.service';
import { ListDeliveriesQueryDto } from './dto/list-deliveries.dto';
import { ListNotificationsQueryDto } from './dto/list-notifications.dto';
import { DeliveryPage, NotificationEnvelope, NotificationPage, RecordedEventEnvelope, SendNotificationResponse } from './dto/notification-response.dto';
import { RecordEventDto } from './dto/record-event.dto';
import { NotificationEventsService } from './events/notification-events.service';
import { SendNotificationDto } from './dto/send-notification.dto';
import { IdempotencyKey } from './idempotency/idempotency-key.decorator';
import { NotificationsService } from './notifications.service';

/** What Swagger UI pre-fills for a send; it is a valid request as it stands. */
const SEND_EXAMPLES = {
  minimal: {
    summary: 'Title and body to two users',
    value: { recipients: { user_ids: ['user-1', 'user-2'] }, notification: { title: 'Hello', body: 'From my push service' } },
  },
  full: {
    summary: 'Every field',
    value: {
      recipients: { user_ids: ['user-1', 'user-2'] },
      notification: {
        title: 'Shipped',
        body: 'Your order is on its way',
        image_url: 'https://cdn.example.com/box.png',
        action_url: 'myapp://orders/42',
      },
      data: { order_id: 42 },
      options: { ttl: 3600, priority: 'high', collapse_id: 'order-42', badge: 1, sound: 'default', platforms: ['ios', 'android'] },
    },
  },
  broadcast: { summary: 'Every installation of the app', value: { recipients: { all: true }, notification: { title: 'Hello', body: 'Everyone' } } },
  tags: { summary: 'Installations tagged beta', value: { recipients: { tags: ['beta'] }, notification: { title: 'New', body: 'Try the beta feature' } } },
  localTime: {
    summary: "9 a.m. in each device's time zone",
    value: { recipients: { all: true }, notification: { title: 'Good morning', body: 'Your daily digest' }, options: { local_time: '09:00' } },
  },
  localized: {
    summary: 'With a French variant',
    value: {
      recipients: { user_ids: ['user-1'] },
      notification: { title: 'Shipped', body: 'Your order is on its way', localizations: { fr: { title: 'Expédiée', body: 'Votre commande est en route' } } },
    },
  },
};

@ApiTags('notifications')
@Controller('api/v1/notifications')
export class NotificationsController {
  constructor(
    private readonly notifications: NotificationsService,
    private readonly events: NotificationEventsService,
    private readonly trace: DeliveryTraceService,
  ) {}

  @Post()
  @HttpCode(202)
  @RequireAbilities('notifications:send')
  @ApiOperation({
    summary: 'Send a notification',
    description:
      'Stores the notification and queues it; delivery to every eligible installation of the users happens afterwards ' +
      '(follow it with GET /api/v1/notifications/{id}). A payload over a provider limit is refused now with a 422 on `notification`.',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Makes the send safe to retry: the same key with the same body answers as the first time (with `Idempotent-Replayed: true`) ' +
      'and sends nothing again. 1 to 255 printable ASCII characters; kept 24 hours per app.',
    schema: { type: 'string', minLength: 1, maxLength: 255, example: 'order-42-shipped' },
  })
  @ApiBody({ type: SendNotificationDto, examples: SEND_EXAMPLES })
  @ApiAcceptedResponse({
    description: 'Accepted: stored and queued.',
    type: SendNotificationResponse,
    headers: {
      'Idempotent-Replayed': {
        description: '`true` when this is the stored answer to an earlier request with the same key.',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  })
  @ApiJsonBodyErrors()
  @ApiConflict(
    'The Idempotency-Key was used with a different body, or its first request is still running.',
    'This idempotency key was already used with a different request.',
  )
  async send(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: SendNotificationDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    // The raw body (not the DTO) is what identifies a retried request.
    const result = await this.notifications.send(auth.appId, dto, req.body, idempotencyKey);
    res.status(result.status);
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    // Already JSON text (a replay must be byte-identical): sent as it is, with res.json's content type.
    res.type('application/json');
    return result.body;
  }

  @Get()
  @RequireAbilities('notifications:read')
  @ApiOperation({ summary: 'List notifications', description: 'Newest first, cursor paginated.' })
  @ApiOkResponse({ description: 'One page.', type: NotificationPage })
  @ApiValidationErrors('A bad `limit` or `cursor`.')
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListNotificationsQueryDto) {
    return this.notifications.list(auth.appId, query.limit === undefined ? 20 : Number(query.limit), query.cursor);
  }

  /** Client events (docs/api.md#reads-and-events); a repeat is accepted and ignored (`counted: false`). */
  @Post(':id/events')
  @HttpCode(202)
  @RequireAbilities('events:write')
  @ApiOperation({
    summary: 'Report a client event',
    description:
      'The app reports that a notification was received, displayed or opened on an installation. Counted once per ' +
      '(notification, installation, type); repeats are accepted and ignored. An installation the notification was not sent to is a 422.',
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The `notification_id` the device received.' })
  @ApiBody({
    type: RecordEventDto,
    examples: { opened: { summary: 'Opened', value: { installation_id: '3f1c-device-install', type: 'opened' } } },
  })
  @ApiAcceptedResponse({ description: 'Accepted (and counted, unless it was a repeat).', type: RecordedEventEnvelope })
  @ApiJsonBodyErrors()
  @ApiNotFound('No notification with this id in the calling app.')
  async recordEvent(@CurrentAuth() auth: AuthContext, @Param('id') id: string, @Body() dto: RecordEventDto) {
    return { data: await this.events.record(auth.appId, id, dto) };
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @RequireAbilities('notifications:send')
  @ApiOperation({
    summary: 'Cancel a notification',
    description:
      'Deliveries not yet attempted are never sent: they count as `skipped` (reason `Canceled`) and the notification completes. ' +
      'Cancelling again answers 200 with `canceled_at` unchanged; a notification that had completed is a 409. No body: any field is a 422.',
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The notification id returned by the send.' })
  @ApiOkResponse({ description: 'The notification, `canceled_at` set.', type: NotificationEnvelope })
  @ApiNotFound('No notification with this id in the calling app.')
  @ApiConflict('The notification had completed before the cancel.', 'This notification has already completed.')
  @ApiJsonBodyErrors()
  async cancel(@CurrentAuth() auth: AuthContext, @Param('id') id: string, @Body(EmptyBodyPipe) _body: Record<string, never>) {
    return { data: await this.notifications.cancel(auth.appId, id) };
  }

  /** The delivery trace (docs/api.md#delivery-trace). */
  @Get(':id/deliveries')
  @RequireAbilities('notifications:read')
  @ApiOperation({
    summary: "List a notification's deliveries",
    description:
      'One entry per installation the fan-out considered: its status, the reason it was skipped or failed, attempts, when it is due ' +
      `and the client events it reported. In a stable order, cursor paginated. With \`status\`, a page looks at up to ${TRACE_SCAN_ROWS.toLocaleString('en')} deliveries ` +
      'and may hold fewer entries than `limit` (even none) while `next_cursor` is not null. Empty until the fan-out has begun.',
  })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The notification id returned by the send.' })
  @ApiOkResponse({ description: 'One page.', type: DeliveryPage })
  @ApiValidationErrors('A bad `limit`, `status` or `cursor`.')
  @ApiNotFound('No notification with this id in the calling app.')
  deliveries(@CurrentAuth() auth: AuthContext, @Param('id') id: string, @Query() query: ListDeliveriesQueryDto) {
    return this.trace.page(auth.appId, id, query.limit === undefined ? 100 : Number(query.limit), query.status ?? null, query.cursor);
  }

  @Get(':id')
  @RequireAbilities('notifications:read')
  @ApiOperation({ summary: 'Read a notification', description: 'With its current statistics.' })
  @ApiParam({ name: 'id', format: 'uuid', description: 'The notification id returned by the send.' })
  @ApiOkResponse({ description: 'The notification.', type: NotificationEnvelope })
  @ApiNotFound('No notification with this id in the calling app.')
  async find(@CurrentAuth() auth: AuthContext, @Param('id') id: string) {
    return { data: await this.notifications.find(auth.appId, id) };
  }
}
