import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { SendNotificationDto } from '../notifications/dto/send-notification.dto';
import { AdminLoginRefused, AdminSessionsService } from './admin-sessions.service';
import { AdminGuard, WithoutSession } from './admin.guard';
import { AdminService } from './admin.service';
import { AdminDeliveriesQueryDto, AdminInstallationsQueryDto, AdminNotificationsQueryDto } from './dto/admin-queries.dto';

/**
 * The operator dashboard's API, /admin/api (docs/operations.md "Operator dashboard", where every
 * route is listed; kept out of the OpenAPI document, which describes the bearer-token API of
 * apps). No bearer token: AdminGuard checks the session cookie, and the CSRF token on every
 * state-changing call.
 */
@ApiExcludeController()
@Public()
@UseGuards(AdminGuard)
@Controller('admin/api')
export class AdminController {
  constructor(
    private readonly admin: AdminService,
    private readonly sessions: AdminSessionsService,
  ) {}

  /** Logs in with `Authorization: Basic` (the login form sends it); sets the session cookie. */
  @Post('session')
  @HttpCode(200)
  @WithoutSession()
  async login(@Req() req: Request, @Res({ passthrough: true }) res: Response) {
    try {
      // The socket's address, not X-Forwarded-For, which a client could vary to dodge the count.
      const { token, session } = await this.sessions.login(req.headers.authorization, req.socket.remoteAddress ?? 'unknown');
      res.setHeader('Set-Cookie', this.sessions.cookie(token, req.secure));
      return { data: { user: this.sessions.user, csrf_token: session.csrf, expires_at: session.expiresAt.toISOString() } };
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
  session(@Req() req: Request) {
    const session = this.sessions.sessionOf(req);
    if (!session) return { data: null };
    return { data: { user: this.sessions.user, csrf_token: session.csrf, expires_at: session.expiresAt.toISOString() } };
  }

  @Delete('session')
  @HttpCode(204)
  logout(@Req() req: Request, @Res({ passthrough: true }) res: Response): void {
    res.setHeader('Set-Cookie', this.sessions.cookie(null, req.secure));
  }

  @Get('overview')
  async overview() {
    return { data: await this.admin.overview() };
  }

  @Get('apps')
  async apps() {
    return { data: await this.admin.listApps() };
  }

  @Get('apps/:app')
  async app(@Param('app') appId: string) {
    return { data: await this.admin.app(appId) };
  }

  @Get('apps/:app/notifications')
  notifications(@Param('app') appId: string, @Query() query: AdminNotificationsQueryDto) {
    return this.admin.listNotifications(appId, query.limit === undefined ? 20 : Number(query.limit), query.cursor, query.search);
  }

  /** Send a test: the API's send request body, validated by the same DTO and service. */
  @Post('apps/:app/notifications')
  @HttpCode(202)
  async send(@Param('app') appId: string, @Body() dto: SendNotificationDto, @Req() req: Request) {
    return { data: await this.admin.send(appId, dto, req.body) };
  }

  @Get('apps/:app/notifications/:id')
  async notification(@Param('app') appId: string, @Param('id') id: string) {
    return { data: await this.admin.notification(appId, id) };
  }

  /** The delivery trace (docs/api.md#delivery-trace) through the API's own service, with a reason filter besides the status. */
  @Get('apps/:app/notifications/:id/deliveries')
  deliveries(@Param('app') appId: string, @Param('id') id: string, @Query() query: AdminDeliveriesQueryDto) {
    return this.admin.deliveries(appId, id, query);
  }

  @Post('apps/:app/notifications/:id/cancel')
  @HttpCode(200)
  async cancel(@Param('app') appId: string, @Param('id') id: string) {
    return { data: await this.admin.cancel(appId, id) };
  }

  @Get('apps/:app/installations')
  async installations(@Param('app') appId: string, @Query() query: AdminInstallationsQueryDto) {
    return { data: await this.admin.lookUpInstallations(appId, query) };
  }
}
