import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import { AuditChange, AuditLog } from '../../audit/audit-log.service';
import { Public } from '../../auth/auth.decorators';
import { NotFoundError } from '../../common/errors';
import { ApiJsonBodyErrors, ApiNotFound, ApiValidationErrors } from '../../common/http/api-responses';
import { InOpenApiDocument } from '../../common/http/openapi';
import { ADMIN_OPENAPI_DOCUMENT } from '../admin-openapi';
import { peerAddress } from '../admin.controller';
import type { AdminSession } from '../admin-session';
import { actorOf } from '../admin-sessions.service';
import { AdminGuard, CurrentSession, NeedsRole } from '../admin.guard';
import { AppsConsoleService, providerNamed } from './apps-console.service';
import {
  AppCreatedEnvelope,
  AppSettingsEnvelope,
  CheckCredentialsDto,
  CreateAppDto,
  CreateTokenDto,
  CreateWebhookDto,
  CredentialCheckList,
  CredentialsSummaryEnvelope,
  NewTokenEnvelope,
  NewWebhookEnvelope,
  PatchSettingsDto,
  PROVIDER_NAMES,
  PutApnsDto,
  PutFcmDto,
  PutHmsDto,
  PutWebPushDto,
  TokenEnvelope,
  TokenList,
  WebhookEnvelope,
  WebhookList,
} from './dto/apps-console.dto';

const APP = ApiParam({ name: 'app', format: 'uuid', description: 'The app id.' });
const NO_APP = 'No such app.';
const STORED = 'The credentials now stored, without their secrets.';

/**
 * Owners' management of an app in the dashboard (docs/api.md#apps-and-credentials-in-the-dashboard):
 * the CLI's services (apps, credentials, tokens, webhooks, settings) behind the session, every route
 * `owner`; answers never carry a stored secret.
 */
@InOpenApiDocument(ADMIN_OPENAPI_DOCUMENT)
@Public()
@UseGuards(AdminGuard)
@Controller('admin/api/apps')
export class AppsConsoleController {
  constructor(
    private readonly console: AppsConsoleService,
    private readonly audit: AuditLog,
  ) {}

  /** Every change goes to the audit log (docs/api.md#275-audit-log), with what identifies it and never a secret. */
  private record(req: Request, session: AdminSession, change: AuditChange): Promise<void> {
    return this.audit.record(actorOf(session, peerAddress(req)), change);
  }

  @Post()
  @NeedsRole('owner')
  @ApiOperation({ summary: 'Create an app' })
  @ApiCreatedResponse({ description: 'The new app.', type: AppCreatedEnvelope })
  @ApiJsonBodyErrors()
  async createApp(@Body() dto: CreateAppDto, @Req() req: Request, @CurrentSession() session: AdminSession): Promise<AppCreatedEnvelope> {
    const data = await this.console.createApp(dto.name);
    await this.record(req, session, { action: 'app.create', appId: data.id, target: data.id, details: { name: data.name } });
    return { data };
  }

  @Get(':app/credentials')
  @NeedsRole('owner')
  @ApiOperation({ summary: "An app's credentials", description: 'What is stored of each provider, never a secret; null for none.' })
  @APP
  @ApiOkResponse({ description: STORED, type: CredentialsSummaryEnvelope })
  @ApiNotFound(NO_APP)
  async credentials(@Param('app') appId: string): Promise<CredentialsSummaryEnvelope> {
    return { data: await this.console.credentialsOf(appId) };
  }

  @Put(':app/credentials/apns')
  @NeedsRole('owner')
  @ApiOperation({ summary: 'Store the APNs key', description: 'The `.p8` key with its key id, team id, topic and environment; replaces the APNs credentials.' })
  @APP
  @ApiOkResponse({ description: STORED, type: CredentialsSummaryEnvelope })
  @ApiNotFound(NO_APP)
  @ApiJsonBodyErrors()
  async putApns(
    @Param('app') appId: string,
    @Body() dto: PutApnsDto,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<CredentialsSummaryEnvelope> {
    const apns = { privateKey: dto.private_key, keyId: dto.key_id, teamId: dto.team_id, topic: dto.topic, production: dto.environment === 'production' };
    const data = await this.console.setCredentials(appId, { apns }, 'private_key');
    await this.record(req, session, { action: 'credentials.set', appId, target: 'apns', details: { ...data.apns } });
    return { data };
  }

  @Put(':app/credentials/fcm')
  @NeedsRole('owner')
  @ApiOperation({ summary: 'Store the FCM service account', description: 'The service-account JSON key file; replaces the FCM credentials.' })
  @APP
  @ApiOkResponse({ description: STORED, type: CredentialsSummaryEnvelope })
  @ApiNotFound(NO_APP)
  @ApiJsonBodyErrors()
  async putFcm(
    @Param('app') appId: string,
    @Body() dto: PutFcmDto,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<CredentialsSummaryEnvelope> {
    const data = await this.console.setCredentials(appId, { fcm: { serviceAccount: dto.service_account } }, 'service_account');
    await this.record(req, session, { action: 'credentials.set', appId, target: 'fcm', details: { ...data.fcm } });
    return { data };
  }

  @Put(':app/credentials/web-push')
  @NeedsRole('owner')
  @ApiOperation({
    summary: 'Store or generate the VAPID keys',
    description: 'With both keys: that pair. With neither: the stored pair is kept, or a new one generated. The public key is answered, the private never.',
  })
  @APP
  @ApiOkResponse({ description: STORED, type: CredentialsSummaryEnvelope })
  @ApiNotFound(NO_APP)
  @ApiJsonBodyErrors()
  async putWebPush(
    @Param('app') appId: string,
    @Body() dto: PutWebPushDto,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<CredentialsSummaryEnvelope> {
    const vapid = { subject: dto.subject, publicKey: dto.public_key ?? undefined, privateKey: dto.private_key ?? undefined };
    const data = await this.console.setCredentials(appId, { vapid }, 'public_key');
    await this.record(req, session, { action: 'credentials.set', appId, target: 'web-push', details: { ...data.web_push } });
    return { data };
  }

  @Put(':app/credentials/hms')
  @NeedsRole('owner')
  @ApiOperation({ summary: 'Store the Huawei Push Kit credentials' })
  @APP
  @ApiOkResponse({ description: STORED, type: CredentialsSummaryEnvelope })
  @ApiNotFound(NO_APP)
  @ApiJsonBodyErrors()
  async putHms(
    @Param('app') appId: string,
    @Body() dto: PutHmsDto,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<CredentialsSummaryEnvelope> {
    const hms = { appId: dto.app_id, clientId: dto.client_id, clientSecret: dto.client_secret };
    const data = await this.console.setCredentials(appId, { hms }, 'client_secret');
    await this.record(req, session, { action: 'credentials.set', appId, target: 'hms', details: { ...data.hms } });
    return { data };
  }

  @Delete(':app/credentials/:provider')
  @NeedsRole('owner')
  @ApiOperation({ summary: "Remove a provider's credentials", description: 'Later sends skip its platforms as NoCredentials.' })
  @APP
  @ApiParam({ name: 'provider', enum: PROVIDER_NAMES })
  @ApiOkResponse({ description: STORED, type: CredentialsSummaryEnvelope })
  @ApiNotFound('No such app or provider.')
  async removeCredentials(
    @Param('app') appId: string,
    @Param('provider') name: string,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<CredentialsSummaryEnvelope> {
    const provider = providerNamed(name);
    if (!provider) throw new NotFoundError();
    const data = await this.console.removeCredentials(appId, provider);
    await this.record(req, session, { action: 'credentials.remove', appId, target: name });
    return { data };
  }

  @Post(':app/credentials/check')
  @HttpCode(200)
  @NeedsRole('owner')
  @ApiOperation({
    summary: 'Check the credentials',
    description: 'As `credentials:check` (docs/api.md#credentials-check): each stored provider proved, no device reached.',
  })
  @APP
  @ApiBody({ type: CheckCredentialsDto, required: false })
  @ApiOkResponse({ description: 'One answer per provider checked.', type: CredentialCheckList })
  @ApiNotFound(NO_APP)
  @ApiValidationErrors('The app has none of the credentials asked for.')
  async check(@Param('app') appId: string, @Body() dto: CheckCredentialsDto): Promise<CredentialCheckList> {
    return { data: await this.console.check(appId, dto?.provider ? (providerNamed(dto.provider) ?? undefined) : undefined) };
  }

  @Get(':app/tokens')
  @NeedsRole('owner')
  @ApiOperation({ summary: "An app's API tokens", description: 'Never the token itself (only its hash is stored).' })
  @APP
  @ApiOkResponse({ description: 'Oldest first, revoked ones too.', type: TokenList })
  @ApiNotFound(NO_APP)
  async tokens(@Param('app') appId: string): Promise<TokenList> {
    return { data: await this.console.tokensOf(appId) };
  }

  @Post(':app/tokens')
  @NeedsRole('owner')
  @ApiOperation({ summary: 'Create an API token', description: 'The token is in this answer only.' })
  @APP
  @ApiCreatedResponse({ description: 'The new token, shown this once.', type: NewTokenEnvelope })
  @ApiNotFound(NO_APP)
  @ApiJsonBodyErrors()
  async createToken(
    @Param('app') appId: string,
    @Body() dto: CreateTokenDto,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<NewTokenEnvelope> {
    const data = await this.console.createToken(appId, dto);
    await this.record(req, session, { action: 'token.create', appId, target: data.id, details: { name: data.name, abilities: data.abilities } });
    return { data };
  }

  @Delete(':app/tokens/:id')
  @NeedsRole('owner')
  @ApiOperation({ summary: 'Revoke an API token', description: 'At once, in every api process.' })
  @APP
  @ApiParam({ name: 'id', format: 'uuid', description: 'The token id.' })
  @ApiOkResponse({ description: 'The revoked token.', type: TokenEnvelope })
  @ApiNotFound('No such app, or no token with this id in it.')
  async revokeToken(
    @Param('app') appId: string,
    @Param('id') id: string,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<TokenEnvelope> {
    const data = await this.console.revokeToken(appId, id);
    await this.record(req, session, { action: 'token.revoke', appId, target: id, details: { name: data.name } });
    return { data };
  }

  @Get(':app/webhooks')
  @NeedsRole('owner')
  @ApiOperation({ summary: "An app's webhooks", description: 'Never their signing secrets.' })
  @APP
  @ApiOkResponse({ description: 'Oldest first.', type: WebhookList })
  @ApiNotFound(NO_APP)
  async webhooks(@Param('app') appId: string): Promise<WebhookList> {
    return { data: await this.console.webhooksOf(appId) };
  }

  @Post(':app/webhooks')
  @NeedsRole('owner')
  @ApiOperation({ summary: 'Create a webhook', description: 'Its signing secret is in this answer only (docs/api.md#webhooks).' })
  @APP
  @ApiCreatedResponse({ description: 'The new webhook with its signing secret, shown this once.', type: NewWebhookEnvelope })
  @ApiNotFound(NO_APP)
  @ApiJsonBodyErrors()
  async createWebhook(
    @Param('app') appId: string,
    @Body() dto: CreateWebhookDto,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<NewWebhookEnvelope> {
    const data = await this.console.createWebhook(appId, dto.url, dto.events);
    await this.record(req, session, { action: 'webhook.create', appId, target: data.id, details: { url: data.url, events: data.events } });
    return { data };
  }

  @Delete(':app/webhooks/:id')
  @NeedsRole('owner')
  @ApiOperation({ summary: 'Delete a webhook', description: 'Calls to it stop.' })
  @APP
  @ApiParam({ name: 'id', format: 'uuid', description: 'The webhook id.' })
  @ApiOkResponse({ description: 'The deleted webhook.', type: WebhookEnvelope })
  @ApiNotFound('No such app, or no webhook with this id in it.')
  async deleteWebhook(
    @Param('app') appId: string,
    @Param('id') id: string,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<WebhookEnvelope> {
    const data = await this.console.deleteWebhook(appId, id);
    await this.record(req, session, { action: 'webhook.delete', appId, target: id, details: { url: data.url } });
    return { data };
  }

  @Get(':app/settings')
  @NeedsRole('owner')
  @ApiOperation({ summary: "An app's settings" })
  @APP
  @ApiOkResponse({ description: 'The settings.', type: AppSettingsEnvelope })
  @ApiNotFound(NO_APP)
  async settings(@Param('app') appId: string): Promise<AppSettingsEnvelope> {
    return { data: await this.console.settings(appId) };
  }

  @Patch(':app/settings')
  @NeedsRole('owner')
  @ApiOperation({ summary: "Change an app's settings", description: 'Only those given (docs/api.md#app-settings); null turns a cap or quiet hours off.' })
  @APP
  @ApiOkResponse({ description: 'The settings now.', type: AppSettingsEnvelope })
  @ApiNotFound(NO_APP)
  @ApiJsonBodyErrors()
  async updateSettings(
    @Param('app') appId: string,
    @Body() dto: PatchSettingsDto,
    @Req() req: Request,
    @CurrentSession() session: AdminSession,
  ): Promise<AppSettingsEnvelope> {
    const data = await this.console.updateSettings(appId, dto);
    await this.record(req, session, { action: 'app.settings', appId, details: { ...data.settings } });
    return { data };
  }
}
