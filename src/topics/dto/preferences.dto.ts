import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DescribeObject, Optional, OptionalNotNull } from '../../common/validation/framework';
import { Bool, Nested } from '../../common/validation/rules';
import { TopicChoices } from '../../common/validation/domain-rules';

export class ChannelChoicesDto {
  @ApiPropertyOptional({ description: 'Push on marketing sends; null returns to the default (true).', example: false })
  @Optional()
  @Bool()
  push?: boolean | null;

  @ApiPropertyOptional({ description: 'Inbox messages; null returns to the default (true).', example: true })
  @Optional()
  @Bool()
  inbox?: boolean | null;
}

/** `PATCH /api/v1/users/{userId}/preferences` (docs/api.md#preferences): what it names changes, the rest stays; at least one field (checked by the service). */
@DescribeObject({ minProperties: 1 })
export class UpdatePreferencesDto {
  @ApiPropertyOptional({ description: "Topic keys to true (subscribed), false, or null (back to the topic's default).", example: { promotions: false } })
  @OptionalNotNull()
  @TopicChoices()
  topics?: Record<string, boolean | null>;

  @ApiPropertyOptional({ type: ChannelChoicesDto })
  @OptionalNotNull()
  @Nested(() => ChannelChoicesDto)
  channels?: ChannelChoicesDto;
}

export const PREFERENCE_SOURCES = ['default', 'user'] as const;

class ChannelsResource {
  @ApiProperty({ type: Boolean, example: true }) push: boolean;
  @ApiProperty({ type: Boolean, example: true }) inbox: boolean;
}

export class PreferencesResource {
  @ApiProperty({ type: String, example: 'user-1' }) user_id: string;
  @ApiProperty({
    type: 'object',
    description: 'Every topic of the app, by key.',
    additionalProperties: {
      type: 'object',
      properties: { subscribed: { type: 'boolean' }, source: { type: 'string', enum: [...PREFERENCE_SOURCES] } },
      required: ['subscribed', 'source'],
    },
    example: { promotions: { subscribed: false, source: 'user' }, orders: { subscribed: true, source: 'default' } },
  })
  topics: Record<string, { subscribed: boolean; source: (typeof PREFERENCE_SOURCES)[number] }>;
  @ApiProperty({ type: ChannelsResource }) channels: ChannelsResource;
}

export class PreferencesEnvelope {
  @ApiProperty({ type: PreferencesResource }) data: PreferencesResource;
}
