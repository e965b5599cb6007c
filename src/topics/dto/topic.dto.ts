import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Optional, Required } from '../../common/validation/framework';
import { In, Str } from '../../common/validation/rules';

export const TOPIC_DEFAULTS = ['subscribed', 'unsubscribed'] as const;
export type TopicDefault = (typeof TOPIC_DEFAULTS)[number];

/** `PUT /api/v1/topics/{key}` (docs/api.md#topics): the whole topic. */
export class PutTopicDto {
  @ApiProperty({ description: 'Shown to users.', example: 'Promotions' })
  @Required()
  @Str({ min: 1, max: 100 })
  name: string;

  @ApiPropertyOptional({ description: 'Shown to users; absent or null for none.', example: 'Offers and sales, at most once a week.' })
  @Optional()
  @Str({ max: 500 })
  description?: string | null;

  @ApiProperty({ description: 'Whether a user who never chose is subscribed.', example: 'subscribed' })
  @Required()
  @In(TOPIC_DEFAULTS)
  default: TopicDefault;
}

const TIMESTAMP = { type: String, format: 'date-time', example: '2026-11-22T10:00:00.000Z' } as const;

export class TopicResource {
  @ApiProperty({ type: String, pattern: '^[a-z0-9_-]{1,64}$', example: 'promotions' }) key: string;
  @ApiProperty({ type: String, example: 'Promotions' }) name: string;
  @ApiProperty({ type: String, nullable: true, example: 'Offers and sales, at most once a week.' }) description: string | null;
  @ApiProperty({ enum: TOPIC_DEFAULTS, example: 'subscribed' }) default: TopicDefault;
  @ApiProperty(TIMESTAMP) created_at: string;
  @ApiProperty(TIMESTAMP) updated_at: string;
}

export class TopicEnvelope {
  @ApiProperty({ type: TopicResource }) data: TopicResource;
}

class ListMeta {
  @ApiProperty({ type: String, nullable: true, description: 'Always null: an app has at most 100 topics, all in one page.' }) next_cursor: string | null;
}

export class TopicListEnvelope {
  @ApiProperty({ type: [TopicResource] }) data: TopicResource[];
  @ApiProperty({ type: ListMeta }) meta: ListMeta;
}
