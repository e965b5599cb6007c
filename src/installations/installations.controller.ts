import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Put, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppsService } from '../apps/apps.service';
import { grants } from '../auth/abilities';
import type { AuthContext } from '../auth/auth-context';
import { CurrentAuth, RequireAbilities } from '../auth/auth.decorators';
import { ValidationFailedError } from '../common/errors';
import { ApiJsonBodyErrors, ApiNotFound, ApiValidationErrors } from '../common/http/api-responses';
import { RegisterInstallationDto, UpdateInstallationDto } from './dto/installation.dto';
import { InstallationEnvelope } from './dto/installation-response.dto';
import { INSTALLATION_ID_SCHEMA, InstallationIdPipe } from './installation-id.pipe';
import { changesAToken, InstallationsService } from './installations.service';

type IdentityFields = Pick<
  UpdateInstallationDto,
  'user_id' | 'user_id_hash' | 'push_token' | 'web_push_subscription' | 'live_activity_start_tokens' | 'widget_push_token'
>;

const NOT_FOUND = 'No installation with this id in the calling app (or it was deleted).';

/** Request examples shown (and sent as they are) by Swagger UI; each one is a valid request. */
const REGISTER_EXAMPLES = {
  ios: {
    summary: 'iOS (APNs device token)',
    value: {
      platform: 'ios',
      push_token: '740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad',
      user_id: 'user-1',
      permission: 'granted',
      device: { app_version: '1.4.0', os_version: '18.1', model: 'iPhone16,1', locale: 'en_GB', timezone: 'Europe/London' },
    },
  },
  android: {
    summary: 'Android (FCM registration token)',
    value: { platform: 'android', push_token: 'dGVzdC1mY20tcmVnaXN0cmF0aW9uLXRva2Vu:APA91bExample', user_id: 'user-1', permission: 'granted' },
  },
  web: {
    summary: "Web (the browser's PushSubscription.toJSON())",
    value: {
      platform: 'web',
      web_push_subscription: {
        endpoint: 'https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH',
        keys: {
          p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
          auth: 'tBHItJI5svbpez7KI4CCXg',
        },
      },
      user_id: 'user-1',
      permission: 'granted',
    },
  },
};

const UPDATE_EXAMPLES = {
  user: { summary: 'Attach to another user', value: { user_id: 'user-2' } },
  logout: { summary: 'Detach from its user (logout)', value: { user_id: null } },
  permission: { summary: 'Permission revoked', value: { permission: 'denied' } },
};

@ApiTags('installations')
@ApiParam({
  name: 'installationId',
  description: "The client's own stable installation identifier (outside these bounds: a 422 on `installation_id`).",
  schema: INSTALLATION_ID_SCHEMA,
  example: '3f1c-device-install',
})
@Controller('api/v1/installations')
export class InstallationsController {
  constructor(
    private readonly installations: InstallationsService,
    private readonly apps: AppsService,
  ) {}

  /**
   * Identity verification (docs/api.md "Identity verification"): while the app has it on, a token lacking
   * `installations:identify` needs a `user_id_hash` to set `user_id`, and to give a bound installation another token.
   */
  private async verifyIdentity(auth: AuthContext, installationId: string, dto: IdentityFields): Promise<void> {
    if (dto.user_id === null || grants(auth.abilities, 'installations:identify')) return;
    if (typeof dto.user_id === 'string') {
      const problem = await this.apps.userIdHashProblem(auth.appId, dto.user_id, dto.user_id_hash);
      if (problem === 'missing') throw ValidationFailedError.of('user_id_hash', 'The user_id_hash field is required to set user_id.');
      if (problem === 'mismatch') throw ValidationFailedError.of('user_id_hash', 'The user_id_hash does not match user_id.');
      return;
    }
    if (!changesAToken(dto) || !(await this.apps.settings(auth.appId))?.settings.identity_verification) return;
    const bound = await this.installations.boundTokenChange(auth.appId, installationId, dto);
    if (!bound) return;
    const problem = await this.apps.userIdHashProblem(auth.appId, bound.userId, dto.user_id_hash);
    const required = `The user_id_hash field is required to change the ${bound.field} of an installation bound to a user.`;
    if (problem === 'missing') throw ValidationFailedError.of('user_id_hash', required);
    if (problem === 'mismatch') throw ValidationFailedError.of('user_id_hash', "The user_id_hash does not match the installation's user_id.");
  }

  @Put(':installationId')
  @RequireAbilities('installations:write')
  @ApiOperation({
    summary: 'Register or refresh an installation',
    description:
      'Creates the installation (201) or refreshes it (200). `platform` is required on creation and cannot change; ' +
      '`push_token` (ios, android) or `web_push_subscription` (web) is required on creation and is never returned. ' +
      'A new token clears `invalidated_at` and `invalid_reason`.',
  })
  @ApiBody({ type: RegisterInstallationDto, examples: REGISTER_EXAMPLES })
  @ApiCreatedResponse({ description: 'Created.', type: InstallationEnvelope })
  @ApiOkResponse({ description: 'It existed and was refreshed.', type: InstallationEnvelope })
  @ApiJsonBodyErrors()
  async register(
    @CurrentAuth() auth: AuthContext,
    @Param('installationId', InstallationIdPipe) installationId: string,
    @Body() dto: RegisterInstallationDto,
    @Res({ passthrough: true }) res: Response,
  ) {
    await this.verifyIdentity(auth, installationId, dto);
    const { created, installation } = await this.installations.register(auth.appId, installationId, dto);
    res.status(created ? 201 : 200);
    return { data: installation };
  }

  @Patch(':installationId')
  @RequireAbilities('installations:write')
  @ApiOperation({
    summary: 'Update an installation',
    description:
      'Any of `user_id` (null detaches), `permission`, `push_token` / `web_push_subscription`, `device`; at least one. ' +
      '`identifier_updated_at` and `permission_updated_at` move only when their value really changes.',
  })
  @ApiBody({ type: UpdateInstallationDto, examples: UPDATE_EXAMPLES })
  @ApiOkResponse({ description: 'Updated.', type: InstallationEnvelope })
  @ApiJsonBodyErrors()
  @ApiNotFound(NOT_FOUND)
  async update(@CurrentAuth() auth: AuthContext, @Param('installationId', InstallationIdPipe) installationId: string, @Body() dto: UpdateInstallationDto) {
    await this.verifyIdentity(auth, installationId, dto);
    return { data: await this.installations.update(auth.appId, installationId, dto) };
  }

  @Get(':installationId')
  @RequireAbilities('installations:read')
  @ApiOperation({ summary: 'Read an installation' })
  @ApiOkResponse({ description: 'The installation.', type: InstallationEnvelope })
  @ApiValidationErrors('The installation id is longer than 255 characters.')
  @ApiNotFound(NOT_FOUND)
  async find(@CurrentAuth() auth: AuthContext, @Param('installationId', InstallationIdPipe) installationId: string) {
    return { data: await this.installations.find(auth.appId, installationId) };
  }

  @Delete(':installationId')
  @HttpCode(204)
  @RequireAbilities('installations:write')
  @ApiOperation({
    summary: 'Delete an installation',
    description: 'Its token, user and device data are erased and later sends skip it; a later PUT registers it anew.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiValidationErrors('The installation id is longer than 255 characters.')
  @ApiNotFound(NOT_FOUND)
  async remove(@CurrentAuth() auth: AuthContext, @Param('installationId', InstallationIdPipe) installationId: string) {
    await this.installations.remove(auth.appId, installationId);
  }
}
