import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AppSettingsDto } from '../apps/dto/app-settings.dto';
import { AppsService } from '../apps/apps.service';
import { NotFoundError } from '../common/errors';
import type { AuthContext } from './auth-context';
import { CurrentAuth, RequireAbilities } from './auth.decorators';

class AppDto {
  @ApiProperty({ type: String, format: 'uuid' }) id: string;
  @ApiProperty({ type: String, example: 'Shop' }) name: string;
  @ApiProperty({ type: AppSettingsDto }) settings: AppSettingsDto;
}

class AppEnvelope {
  @ApiProperty({ type: AppDto }) data: AppDto;
}

/** The calling token's app and its settings (docs/api.md "App settings"). */
@ApiTags('app')
@Controller('api/v1/app')
export class AppController {
  constructor(private readonly apps: AppsService) {}

  @Get()
  @RequireAbilities()
  @ApiOperation({ summary: "The token's app and its settings", description: 'Any valid token of the app may read it.' })
  @ApiOkResponse({ description: 'The app.', type: AppEnvelope })
  async find(@CurrentAuth() auth: AuthContext) {
    const app = await this.apps.settings(auth.appId);
    if (!app) throw new NotFoundError();
    return { data: app };
  }
}
