import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PLATFORMS } from '../../common/platform';
import { OptionalNotNull } from '../../common/validation/framework';
import { PlainObject, Str } from '../../common/validation/rules';
import { SendNotificationDto } from '../dto/send-notification.dto';

/** `POST /api/v1/templates/{key}/preview` (docs/api.md#preview). */
export class PreviewTemplateDto {
  @ApiPropertyOptional({
    description:
      "Your installation id: its platform, locale and properties, as a delivery would use them; absent: every platform, no installation's variables.",
    example: 'inst-1',
  })
  @OptionalNotNull()
  @Str({ min: 1, max: 255 })
  installation_id?: string;
  @ApiPropertyOptional({ description: 'Rendered as `vars.*`; at most 4 KiB as JSON.', example: { first_name: 'Ann' } })
  @OptionalNotNull()
  @PlainObject({ maxBytes: 4096 })
  variables?: Record<string, unknown>;
}

/** `POST /api/v1/notifications/preview` (docs/api.md#preview): a send body, with the installation to preview for. */
export class PreviewSendDto extends SendNotificationDto {
  @ApiPropertyOptional({ description: 'Your installation id; absent: every platform the send targets.', example: 'inst-1' })
  @OptionalNotNull()
  @Str({ min: 1, max: 255 })
  installation_id?: string;
}

export class PlatformPreviewResource {
  @ApiProperty({ enum: PLATFORMS, example: 'ios' }) platform: string;
  @ApiProperty({ type: String, description: 'The push service: apns, fcm, web_push, unifiedpush or hms.', example: 'apns' }) provider: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "The body the push service would receive (FCM's and Huawei's `message` without the token); null when the delivery would be skipped.",
  })
  payload: Record<string, unknown> | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Its size as the limit counts it; null when it could not be rendered.' }) bytes: number | null;
  @ApiProperty({ type: 'integer', example: 4096 }) limit: number;
  @ApiProperty({ type: String, nullable: true, description: 'RenderFailed or PayloadTooLarge, as the delivery would skip it; else null.' }) skip_reason:
    string | null;
  @ApiProperty({ type: String, nullable: true, description: "The renderer's message with RenderFailed; else null." }) detail: string | null;
}

class PreviewResource {
  @ApiProperty({ type: String, nullable: true, example: 'inst-1' }) installation_id: string | null;
  @ApiProperty({ type: [PlatformPreviewResource] }) platforms: PlatformPreviewResource[];
}

export class PreviewEnvelope {
  @ApiProperty({ type: PreviewResource }) data: PreviewResource;
}
