import { ApiProperty } from '@nestjs/swagger';
import { PLATFORMS } from '../../../common/platform';
import { PERMISSIONS } from '../../../common/vocabulary';
import { Optional } from '../../../common/validation/framework';
import { IntLike } from '../../../common/validation/rules';
import { ANALYTICS_DAYS } from '../analytics.service';

const DAY = { type: String, format: 'date', example: '2026-11-22' } as const;

export class PlatformFunnel {
  @ApiProperty({ enum: PLATFORMS }) platform: string;
  @ApiProperty({ description: "The send's deliveries on this platform." }) deliveries: number;
  @ApiProperty() accepted: number;
  @ApiProperty() failed: number;
  @ApiProperty() skipped: number;
  @ApiProperty({ description: 'Deliveries whose device reported it received (or later displayed or opened) the push.' }) received: number;
  @ApiProperty({ description: 'Displayed (or opened).' }) displayed: number;
  @ApiProperty() opened: number;
}

export class PlatformFunnelList {
  @ApiProperty({ type: [PlatformFunnel], description: 'One entry per platform the send has deliveries on.' }) data: PlatformFunnel[];
}

export class AnalyticsQueryDto {
  @ApiProperty({
    required: false,
    minimum: ANALYTICS_DAYS.min,
    maximum: ANALYTICS_DAYS.max,
    description: `UTC days, today included; ${ANALYTICS_DAYS.default} when absent.`,
  })
  @Optional()
  @IntLike(ANALYTICS_DAYS)
  days?: string | number | null;
}

export class InstallationDayEntry {
  @ApiProperty(DAY) day: string;
  @ApiProperty({ enum: PLATFORMS }) platform: string;
  @ApiProperty({ enum: PERMISSIONS }) permission: string;
  @ApiProperty({ description: 'Live installations, as last counted that day.' }) installations: number;
}

export class SendDayEntry {
  @ApiProperty(DAY) day: string;
  @ApiProperty({ description: 'Sends created that UTC day (dry runs left out).' }) sends: number;
  @ApiProperty() accepted: number;
  @ApiProperty() failed: number;
  @ApiProperty() skipped: number;
  @ApiProperty() opened: number;
}

export class CategoryEntry {
  @ApiProperty({ enum: ['transactional', 'marketing'] }) category: string;
  @ApiProperty() sends: number;
  @ApiProperty() accepted: number;
  @ApiProperty() opened: number;
  @ApiProperty({ type: Number, nullable: true, description: 'opened / accepted; null with nothing accepted.' }) opened_rate: number | null;
}

export class AppAnalytics {
  @ApiProperty({ ...DAY, description: 'The first day covered.' }) since: string;
  @ApiProperty({ type: [InstallationDayEntry], description: 'Per day, platform and permission; a day the worker did not count is absent.' })
  installations: InstallationDayEntry[];
  @ApiProperty({ type: [SendDayEntry], description: 'Days without a send are absent.' }) sends: SendDayEntry[];
  @ApiProperty({ type: [CategoryEntry] }) categories: CategoryEntry[];
}

export class AppAnalyticsEnvelope {
  @ApiProperty({ type: AppAnalytics }) data: AppAnalytics;
}
