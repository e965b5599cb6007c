import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Optional, Required } from '../../common/validation/framework';
import { Nested, PlainObject, Str } from '../../common/validation/rules';
import { HttpsUrl, LinkUrl } from '../../common/validation/domain-rules';
import { type LocalizedContent, Localizations, reservedDataKey } from '../../common/validation/content-rules';

/** A template's texts (docs/api.md#templates): each a Liquid template, under the send's bounds (docs/api.md#send). */
export class TemplateNotificationDto {
  @ApiProperty({ example: 'Hi {{ vars.first_name | default: "there" }}' })
  @Required()
  @Str({ min: 1, max: 256 })
  title: string;
  @ApiProperty({ example: 'Your order {{ vars.order_id }} is on its way' })
  @Required()
  @Str({ min: 1, max: 4000 })
  body: string;
  @ApiPropertyOptional({ description: 'An absolute https:// URL.', example: 'https://cdn.example.com/box.png' })
  @Optional()
  @HttpsUrl(2048)
  image_url?: string | null;
  @ApiPropertyOptional({ description: 'An absolute URL or an app deep link (scheme://...).', example: 'myapp://orders/{{ vars.order_id }}' })
  @Optional()
  @LinkUrl(2048)
  action_url?: string | null;
}

/** `PUT /api/v1/templates/{key}` (docs/api.md#templates): the whole template; a change makes a new version. */
export class PutTemplateDto {
  @ApiProperty({ description: 'Shown in the dashboard.', example: 'Order shipped' })
  @Required()
  @Str({ min: 1, max: 100 })
  name: string;

  @Required() @Nested(() => TemplateNotificationDto) notification: TemplateNotificationDto;

  @ApiPropertyOptional({
    description: "Variants by BCP 47 language tag (at most 50), as a send's `notification.localizations`; each field a Liquid template.",
    example: { fr: { title: 'Bonjour {{ vars.first_name }}' } },
  })
  @Optional()
  @Localizations()
  localizations?: Record<string, LocalizedContent> | null;

  @ApiPropertyOptional({
    description: "Custom data, as a send's `data` (at most 4 KiB as JSON); a send's own `data` replaces it.",
    example: { kind: 'shipping' },
  })
  @Optional()
  @PlainObject({ maxBytes: 4096, reservedKey: reservedDataKey })
  data?: Record<string, unknown> | null;
}

const TIMESTAMP = { type: String, format: 'date-time', example: '2026-11-22T10:00:00.000Z' } as const;

class TemplateContent {
  @ApiProperty({ type: String }) title: string;
  @ApiProperty({ type: String }) body: string;
  @ApiProperty({ type: String, nullable: true }) image_url: string | null;
  @ApiProperty({ type: String, nullable: true }) action_url: string | null;
}

export class TemplateResource {
  @ApiProperty({ type: String, pattern: '^[a-z0-9_-]{1,64}$', example: 'order_shipped' }) key: string;
  @ApiProperty({ type: String, example: 'Order shipped' }) name: string;
  @ApiProperty({ type: TemplateContent }) notification: TemplateContent;
  @ApiProperty({ type: Object, nullable: true, description: 'By language tag, as given.' }) localizations: Record<string, LocalizedContent> | null;
  @ApiProperty({ type: Object, nullable: true }) data: Record<string, unknown> | null;
  @ApiProperty({ type: Number, description: 'This version: 1, then one more with each change.', example: 1 }) version: number;
  @ApiProperty({ ...TIMESTAMP, description: 'When version 1 was saved.' }) created_at: string;
  @ApiProperty({ ...TIMESTAMP, description: 'When this version was saved.' }) updated_at: string;
}

export class TemplateEnvelope {
  @ApiProperty({ type: TemplateResource }) data: TemplateResource;
}

class ListMeta {
  @ApiProperty({ type: String, nullable: true, description: 'Always null: every template of the app, in one page.' }) next_cursor: string | null;
}

export class TemplateListEnvelope {
  @ApiProperty({ type: [TemplateResource], description: "Each template's latest version, by key." }) data: TemplateResource[];
  @ApiProperty({ type: ListMeta }) meta: ListMeta;
}
