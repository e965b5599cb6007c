import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FREQUENCY_CAP_HOURS, FREQUENCY_CAP_MAX, INBOX_DAYS } from '../app-settings';

// An app's settings as `GET /api/v1/app` and the operator dashboard answer them (docs/api.md#app-settings).

export class FrequencyCapDto {
  @ApiProperty({ type: Number, minimum: FREQUENCY_CAP_MAX.min, maximum: FREQUENCY_CAP_MAX.max, example: 3 }) max: number;
  @ApiProperty({ type: Number, minimum: FREQUENCY_CAP_HOURS.min, maximum: FREQUENCY_CAP_HOURS.max, example: 24 }) hours: number;
}

export class QuietHoursDto {
  @ApiProperty({ type: String, pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', example: '22:00' }) start: string;
  @ApiProperty({ type: String, pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', example: '07:00' }) end: string;
}

export class AppSettingsDto {
  @ApiPropertyOptional({
    type: FrequencyCapDto,
    nullable: true,
    description: 'At most `max` marketing sends per installation within `hours` (docs/api.md#pacing); null when off.',
  })
  frequency_cap: FrequencyCapDto | null;
  @ApiPropertyOptional({
    type: QuietHoursDto,
    nullable: true,
    description: "Marketing sends wait out this window on the installation's own clock (docs/api.md#pacing); null when off.",
  })
  quiet_hours: QuietHoursDto | null;
  @ApiProperty({ type: Boolean, description: 'Whether setting `user_id` needs `user_id_hash` (docs/api.md "Identity verification").' })
  identity_verification: boolean;
  @ApiProperty({
    type: Number,
    minimum: INBOX_DAYS.min,
    maximum: INBOX_DAYS.max,
    description: 'Days an inbox message is kept (docs/api.md#inbox).',
    example: 90,
  })
  inbox_days: number;
}
