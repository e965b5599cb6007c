import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { FREQUENCY_CAP_HOURS, FREQUENCY_CAP_MAX } from '../apps/app-settings';
import { AppsService } from '../apps/apps.service';
import { NotFoundError } from '../common/errors';
import type { AuthContext } from './auth-context';
import { CurrentAuth, RequireAbilities } from './auth.decorators';

class FrequencyCapDto {
  @ApiProperty({ type: Number, minimum: FREQUENCY_CAP_MAX.min, maximum: FREQUENCY_CAP_MAX.max, example: 3 }) max: number;
  @ApiProperty({ type: Number, minimum: FREQUENCY_CAP_HOURS.min, maximum: FREQUENCY_CAP_HOURS.max, example: 24 }) hours: number;
}

class QuietHoursDto {
  @ApiProperty({ type: String, pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', example: '22:00' }) start: string;
  @ApiProperty({ type: String, pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', example: '07:00' }) end: string;
}

class AppSettingsDto {
  @ApiPropertyOptional({ type: FrequencyCapDto, nullable: true, description: 'Stored; applied to marketing sends by a later version.' })
  frequency_cap: FrequencyCapDto | null;
  @ApiPropertyOptional({
    type: QuietHoursDto,
    nullable: true,
    description: "On the installation's own clock; stored, applied to marketing sends by a later version.",
  })
  quiet_hours: QuietHoursDto | null;
  @ApiProperty({ type: Boolean, description: 'Whether setting `user_id` needs `user_id_hash` (docs/api.md "Identity verification").' })
  identity_verification: boolean;
}

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
