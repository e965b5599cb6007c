import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { ApiConflict, ApiJsonBodyErrors, ApiNotFound, ApiValidationErrors, ErrorResponse } from '../common/http/api-responses';
import { InOpenApiDocument } from '../common/http/openapi';
import { SendNotificationDto } from '../notifications/dto/send-notification.dto';
import { InboxPage, ListInboxQueryDto } from '../inbox/dto/inbox.dto';
import { PreferencesEnvelope } from '../topics/dto/preferences.dto';
import { PutTopicDto, TopicEnvelope } from '../topics/dto/topic.dto';
import { TOPIC_KEY_SCHEMA, TopicKeyPipe } from '../topics/topic-key.pipe';
import { UserIdPipe } from '../users/user-access';
import { AuditLog } from '../audit/audit-log.service';
import { appsReached } from '../operators/roles';
import type { AdminSession } from './admin-session';
import { actorOf, AdminLoginRefused, AdminSessionsService } from './admin-sessions.service';
import { ADMIN_OPENAPI_DOCUMENT } from './admin-openapi';
import { AdminGuard, CurrentSession, NeedsRole, RoleOnSomeApp, WithoutSession } from './admin.guard';
import { AdminService } from './admin.service';
import { AdminBrowseInstallationsDto, AdminDeliveriesQueryDto, AdminInstallationsQueryDto, AdminNotificationsQueryDto } from './dto/admin-queries.dto';
import {
  AdminAppList,
  AdminLiveActivitiesEnvelope,
  AdminOverviewEnvelope,
  AdminSessionEnvelope,
  AdminSessionOrNoneEnvelope,
  AdminSessionResource,
  AdminTopicList,
  AppEnvelope,
  InstallationLookupList,
  NotificationDetailEnvelope,
  OperatorNotificationEnvelope,
  OperatorNotificationPage,
  OperatorDeliveryPage,
  InstallationBrowsePage,
} from './dto/admin-responses.dto';

const APP = ApiParam({ name: 'app', format: 'uuid', description: 'The app id.' });
const NOTIFICATION = ApiParam({ name: 'id', format: 'uuid', description: 'The notification id.' });
const TOPIC = ApiParam({ name: 'key', description: 'The topic key: 1 to 64 of a-z 0-9 _ -.', schema: TOPIC_KEY_SCHEMA, example: 'promotions' });
const USER = ApiParam({ name: 'user', description: 'The user id (1 to 255 characters), as the app sets it on installations.', example: 'user-1' });
const NO_APP = 'No such app.';
const NO_NOTIFICATION = 'No such app, or no notification with this id in it.';

/** The socket's peer: what the login limit counts and the audit log records (X-Forwarded-For is the client's to choose). */
export const peerAddress = (req: Request): string => req.socket.remoteAddress ?? 'unknown';
export const loginOrigin = (req: Request) => ({ address: peerAddress(req), userAgent: req.headers['user-agent'] ?? null });

/** The dashboard's API (docs/operations.md "Operator dashboard"), in its own OpenAPI document; AdminGuard checks the session. */
@InOpenApiDocument(ADMIN_OPENAPI_DOCUMENT)
@Public()
@UseGuards(AdminGuard)
@Controller('admin/api')
export class AdminController {
  constructor(
    private readonly admin: AdminService,
    private readonly sessions: AdminSessionsService,
    private readonly audit: AuditLog,
  ) {}

  /** Logs in with `Authorization: Basic` (the login form sends it); sets the session cookie. */
  @Post('session')
  @HttpCode(200)
  @WithoutSession()
  @ApiOperation({
    summary: 'Log in',
    description: "An operator's e-mail and password, or the bootstrap ADMIN_USER and ADMIN_PASSWORD, as `Authorization: Basic`; no body.",
  })
  @ApiHeader({ name: 'Authorization', required: true, description: '`Basic ` and base64 of `email:password` (UTF-8).', schema: { type: 'string' } })
  @ApiOkResponse({
    description: 'Logged in: the session cookie is set.',
    type: AdminSessionEnvelope,
    headers: { 'Set-Cookie': { description: 'The session cookie (HttpOnly, SameSite=Strict, Path=/admin).', schema: { type: 'string' } } },
  })
  @ApiUnauthorizedResponse({ description: 'Wrong credentials (each failure is counted).', type: ErrorResponse, example: { message: 'Unauthenticated.' } })
  @ApiTooManyRequestsResponse({
    description: 'Too many failed logins from this address or for this account: refused, even with the right credentials, until Retry-After.',
    type: ErrorResponse,
    example: { message: 'Too Many Attempts.' },
    headers: { 'Retry-After': { description: 'Seconds until logins are accepted again.', schema: { type: 'integer' } } },
  })
  async login(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<AdminSessionEnvelope> {
    try {
      // The socket's address, not X-Forwarded-For, which a client could vary to dodge the count.
      const { token, session } = await this.sessions.login(req.headers.authorization, loginOrigin(req));
      res.setHeader('Set-Cookie', this.sessions.cookie(token, req.secure));
      return { data: this.sessionResource(session) };
    } catch (error) {
      if (error instanceof AdminLoginRefused && error.retryAfterSeconds) res.setHeader('Retry-After', String(error.retryAfterSeconds));
      throw error;
    }
  }

  /**
   * Who is logged in, and the CSRF token the page sends back; `data: null` without a session (the
   * page then shows its login form: an expected state, not an error, so not a 401).
   */
  @Get('session')
  @WithoutSession()
  @ApiOperation({ summary: 'The current session' })
  @ApiOkResponse({ description: 'The session of the cookie sent, or `data: null`.', type: AdminSessionOrNoneEnvelope })
  async session(@Req() req: Request): Promise<AdminSessionOrNoneEnvelope> {
    const session = await this.sessions.sessionOf(req);
    return { data: session ? this.sessionResource(session) : null };
  }

  private sessionResource(session: AdminSession): AdminSessionResource {
    const { operator } = session;
    return {
      user: operator.email,
      operator_id: operator.id,
      grants: operator.grants,
      csrf_token: session.csrf,
      expires_at: session.expiresAt.toISOString(),
    };
  }

  @Delete('session')
  @NeedsRole('viewer')
  @RoleOnSomeApp()
  @HttpCode(204)
  @ApiOperation({ summary: 'Log out', description: 'Ends this session and clears its cookie.' })
  @ApiNoContentResponse({ description: 'Logged out.', headers: { 'Set-Cookie': { description: 'The cleared session cookie.', schema: { type: 'string' } } } })
  async logout(@Req() req: Request, @Res({ passthrough: true }) res: Response, @CurrentSession() session: AdminSession): Promise<void> {
    await this.sessions.close(session, peerAddress(req));
    res.setHeader('Set-Cookie', this.sessions.cookie(null, req.secure));
  }

  @Get('overview')
  @NeedsRole('viewer')
  @RoleOnSomeApp()
  @ApiOperation({
    summary: 'The overview',
    description:
      "Outcomes per minute of the last hour, queue depths and webhook failures of the last day. An operator of some apps sees those apps' outcomes and webhooks, and no queue depths (every app's jobs).",
  })
  @ApiOkResponse({ description: 'The overview.', type: AdminOverviewEnvelope })
  async overview(@CurrentSession() session: AdminSession): Promise<AdminOverviewEnvelope> {
    return { data: await this.admin.overview(appsReached(session.operator.grants)) };
  }

  @Get('apps')
  @NeedsRole('viewer')
  @RoleOnSomeApp()
  @ApiOperation({
    summary: 'Every app the operator may see',
    description: 'With its live installations by platform, its credentials (no secret) and its sends of the last 24 hours.',
  })
  @ApiOkResponse({ description: 'Every app the operator has a role for, oldest first.', type: AdminAppList })
  async apps(@CurrentSession() session: AdminSession): Promise<AdminAppList> {
    return { data: await this.admin.listApps(appsReached(session.operator.grants)) };
  }

  @Get('apps/:app')
  @NeedsRole('viewer')
  @ApiOperation({ summary: 'An app' })
  @APP
  @ApiOkResponse({ description: 'The app.', type: AppEnvelope })
  @ApiNotFound(NO_APP)
  async app(@Param('app') appId: string): Promise<AppEnvelope> {
    return { data: await this.admin.app(appId) };
  }

  @Get('apps/:app/notifications')
  @NeedsRole('viewer')
  @ApiOperation({
    summary: "An app's notifications",
    description: 'Newest first, cursor paginated, optionally those whose title contains `search` and those created before `before`.',
  })
  @APP
  @ApiOkResponse({ description: 'One page.', type: OperatorNotificationPage })
  @ApiValidationErrors('A bad `limit`, `cursor`, `search` or `before`.')
  @ApiNotFound(NO_APP)
  notifications(@Param('app') appId: string, @Query() query: AdminNotificationsQueryDto): Promise<OperatorNotificationPage> {
    return this.admin.listNotifications(appId, { ...query, limit: query.limit === undefined ? 20 : Number(query.limit) });
  }

  /** The composer's send: the API's send request body, validated by the same DTO and service. */
  @Post('apps/:app/notifications')
  @NeedsRole('editor')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a notification',
    description: 'The body of `POST /api/v1/notifications` (docs/api.md#send), with its validation and payload size checks.',
  })
  @APP
  @ApiBody({ type: SendNotificationDto })
  @ApiAcceptedResponse({ description: 'Stored and queued.', type: OperatorNotificationEnvelope })
  @ApiJsonBodyErrors()
  @ApiNotFound(NO_APP)
  async send(
    @Param('app') appId: string,
    @Body() dto: SendNotificationDto,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<OperatorNotificationEnvelope> {
    const data = await this.admin.send(appId, dto, req.body);
    await this.audit.record(actorOf(session, peerAddress(req)), {
      action: 'notification.send',
      appId,
      target: data.id,
      details: { title: dto.notification?.title ?? null },
    });
    return { data };
  }

  @Get('apps/:app/notifications/:id')
  @NeedsRole('viewer')
  @ApiOperation({ summary: 'A notification', description: 'With its outcomes per minute.' })
  @APP
  @NOTIFICATION
  @ApiOkResponse({ description: 'The notification.', type: NotificationDetailEnvelope })
  @ApiNotFound(NO_NOTIFICATION)
  async notification(@Param('app') appId: string, @Param('id') id: string): Promise<NotificationDetailEnvelope> {
    return { data: await this.admin.notification(appId, id) };
  }

  /** The delivery trace (docs/api.md#delivery-trace) through the API's own service, with a reason filter besides the status. */
  @Get('apps/:app/notifications/:id/deliveries')
  @NeedsRole('viewer')
  @ApiOperation({
    summary: "A notification's deliveries",
    description:
      'The delivery trace of `GET /api/v1/notifications/{id}/deliveries` (docs/api.md#delivery-trace), also filtered by reason, each entry with its next attempt and localization.',
  })
  @APP
  @NOTIFICATION
  @ApiOkResponse({ description: 'One page.', type: OperatorDeliveryPage })
  @ApiValidationErrors('A bad `limit`, `status`, `reason` or `cursor`.')
  @ApiNotFound(NO_NOTIFICATION)
  deliveries(@Param('app') appId: string, @Param('id') id: string, @Query() query: AdminDeliveriesQueryDto): Promise<OperatorDeliveryPage> {
    return this.admin.deliveries(appId, id, query);
  }

  @Post('apps/:app/notifications/:id/cancel')
  @NeedsRole('editor')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a notification', description: 'As `POST /api/v1/notifications/{id}/cancel` (docs/api.md#scheduling). No body.' })
  @APP
  @NOTIFICATION
  @ApiOkResponse({ description: 'The notification, `canceled_at` set.', type: OperatorNotificationEnvelope })
  @ApiNotFound(NO_NOTIFICATION)
  @ApiConflict('The notification had completed before the cancel.', 'This notification has already completed.')
  async cancel(
    @Param('app') appId: string,
    @Param('id') id: string,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<OperatorNotificationEnvelope> {
    const data = await this.admin.cancel(appId, id);
    await this.audit.record(actorOf(session, peerAddress(req)), { action: 'notification.cancel', appId, target: id });
    return { data };
  }

  @Post('apps/:app/installations/browse')
  @NeedsRole('viewer')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Browse installations',
    description: 'A page of live installations in installation_id order, matching `filter` (docs/api.md#audience-filters); the count on the first page.',
  })
  @APP
  @ApiBody({ type: AdminBrowseInstallationsDto })
  @ApiOkResponse({ description: 'One page.', type: InstallationBrowsePage })
  @ApiJsonBodyErrors()
  @ApiNotFound(NO_APP)
  browseInstallations(@Param('app') appId: string, @Body() dto: AdminBrowseInstallationsDto) {
    return this.admin.browseInstallations(appId, dto);
  }

  @Get('apps/:app/installations')
  @NeedsRole('viewer')
  @ApiOperation({
    summary: 'Look installations up',
    description: 'By `installation_id` or by `user_id` (one of the two), each with the latest notifications that targeted it.',
  })
  @APP
  @ApiOkResponse({ description: 'The installations found (none is an empty list).', type: InstallationLookupList })
  @ApiValidationErrors('Neither or both of `installation_id` and `user_id`, or a bad value.')
  @ApiNotFound(NO_APP)
  async installations(@Param('app') appId: string, @Query() query: AdminInstallationsQueryDto) {
    return { data: await this.admin.lookUpInstallations(appId, query) };
  }

  @Get('apps/:app/live-activities')
  @NeedsRole('viewer')
  @ApiOperation({
    summary: "An app's Live Activities",
    description:
      'Its newest activities, each with its newest update, and its broadcast channels, each with its newest broadcast (docs/api.md#live-activities).',
  })
  @APP
  @ApiOkResponse({ description: 'The activities and channels (none are empty lists).', type: AdminLiveActivitiesEnvelope })
  @ApiNotFound(NO_APP)
  async liveActivities(@Param('app') appId: string): Promise<AdminLiveActivitiesEnvelope> {
    return { data: await this.admin.liveActivities(appId) };
  }

  @Get('apps/:app/topics')
  @NeedsRole('viewer')
  @ApiOperation({
    summary: "An app's topics",
    description: 'By key (docs/api.md#topics), each with `subscribers`: the users a `recipients.topic` send would reach now (null when that count timed out).',
  })
  @APP
  @ApiOkResponse({ description: 'Every topic of the app (none is an empty list).', type: AdminTopicList })
  @ApiNotFound(NO_APP)
  async topics(@Param('app') appId: string): Promise<AdminTopicList> {
    return { data: await this.admin.topics(appId) };
  }

  /** As PUT /api/v1/topics/{key}: any operator may, as they may send and cancel (docs/operations.md "Operator dashboard"). */
  @Put('apps/:app/topics/:key')
  @NeedsRole('editor')
  @ApiOperation({
    summary: 'Create or replace a topic',
    description: 'As `PUT /api/v1/topics/{key}` (docs/api.md#topics), at most 100 per app; 200 whether it was new or not (the page knows).',
  })
  @APP
  @TOPIC
  @ApiBody({ type: PutTopicDto })
  @ApiOkResponse({ description: 'The topic as stored.', type: TopicEnvelope })
  @ApiJsonBodyErrors()
  @ApiNotFound(NO_APP)
  async putTopic(
    @Param('app') appId: string,
    @Param('key', TopicKeyPipe) key: string,
    @Body() dto: PutTopicDto,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<TopicEnvelope> {
    const { topic } = await this.admin.putTopic(appId, key, dto);
    await this.audit.record(actorOf(session, peerAddress(req)), { action: 'topic.put', appId, target: key, details: { name: topic.name } });
    return { data: topic };
  }

  @Delete('apps/:app/topics/:key')
  @NeedsRole('editor')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a topic', description: "As `DELETE /api/v1/topics/{key}`: the users' choices for it go with it." })
  @APP
  @TOPIC
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiValidationErrors('The key is not a topic key.')
  @ApiNotFound('No such app, or no topic with this key in it.')
  async deleteTopic(
    @Param('app') appId: string,
    @Param('key', TopicKeyPipe) key: string,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<void> {
    await this.admin.deleteTopic(appId, key);
    await this.audit.record(actorOf(session, peerAddress(req)), { action: 'topic.delete', appId, target: key });
  }

  @Get('apps/:app/users/:user/preferences')
  @NeedsRole('viewer')
  @ApiOperation({
    summary: "A user's preferences",
    description: 'As `GET /api/v1/users/{user_id}/preferences` (docs/api.md#preferences): every topic of the app, with the defaults filled in.',
  })
  @APP
  @USER
  @ApiOkResponse({ description: 'The preferences (any user id has some).', type: PreferencesEnvelope })
  @ApiValidationErrors('The user id is longer than 255 characters.')
  @ApiNotFound(NO_APP)
  async preferences(@Param('app') appId: string, @Param('user', UserIdPipe) userId: string): Promise<PreferencesEnvelope> {
    return { data: await this.admin.preferences(appId, userId) };
  }

  @Get('apps/:app/users/:user/inbox')
  @NeedsRole('viewer')
  @ApiOperation({
    summary: "A user's inbox",
    description: 'As `GET /api/v1/users/{user_id}/inbox` (docs/api.md#inbox): newest first, cursor paginated, `meta.unread` the unread count.',
  })
  @APP
  @USER
  @ApiOkResponse({ description: 'One page.', type: InboxPage })
  @ApiValidationErrors('A bad `state`, `limit`, `cursor` or user id.')
  @ApiNotFound(NO_APP)
  inbox(@Param('app') appId: string, @Param('user', UserIdPipe) userId: string, @Query() query: ListInboxQueryDto): Promise<InboxPage> {
    return this.admin.inbox(appId, userId, query);
  }
}
