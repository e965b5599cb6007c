import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '../auth/auth-context';
import { CurrentAuth } from '../auth/auth.decorators';
import { ApiJsonBodyErrors, ApiValidationErrors } from '../common/http/api-responses';
import { USER_ID_PARAM, UserIdPipe, UserRoute } from '../users/user-access';
import { PreferencesEnvelope, UpdatePreferencesDto } from './dto/preferences.dto';
import { PreferencesService } from './preferences.service';

/** docs/api.md#preferences */
@ApiTags('users')
@Controller(`api/v1/users/:${USER_ID_PARAM}/preferences`)
export class PreferencesController {
  constructor(private readonly preferences: PreferencesService) {}

  @Get()
  @UserRoute()
  @ApiOperation({ summary: "A user's preferences", description: 'Every topic of the app, with the defaults filled in; any user id has preferences.' })
  @ApiOkResponse({ description: 'The preferences.', type: PreferencesEnvelope })
  @ApiValidationErrors('The user id is longer than 255 characters.')
  async get(@CurrentAuth() auth: AuthContext, @Param(USER_ID_PARAM, UserIdPipe) userId: string) {
    return { data: await this.preferences.get(auth.appId, userId) };
  }

  @Patch()
  @UserRoute()
  @ApiOperation({
    summary: "Change a user's preferences",
    description: 'What the body names changes; `null` returns a topic or channel to its default. An unknown topic is a 422 at `topics.<key>`.',
  })
  @ApiOkResponse({ description: 'The preferences after the change.', type: PreferencesEnvelope })
  @ApiJsonBodyErrors()
  async update(@CurrentAuth() auth: AuthContext, @Param(USER_ID_PARAM, UserIdPipe) userId: string, @Body() dto: UpdatePreferencesDto) {
    return { data: await this.preferences.update(auth.appId, userId, dto) };
  }
}
