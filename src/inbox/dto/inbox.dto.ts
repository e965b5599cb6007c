import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Expect, SameKeys } from '../../common/http/api-responses';
import { OptionalNotNull, Optional } from '../../common/validation/framework';
import { Bool, In, IntLike, Str } from '../../common/validation/rules';
import type { InboxMessageResource as MappedMessage } from '../inbox-message.resource';
import { INBOX_STATES } from '../inbox.repository';

const TIMESTAMP = { type: String, format: 'date-time', example: '2026-11-22T10:00:00.000Z' } as const;

export class ListInboxQueryDto {
  @ApiPropertyOptional({ enum: INBOX_STATES, description: 'Which messages; every message not archived when absent.' })
  @Optional()
  @In(INBOX_STATES)
  state?: (typeof INBOX_STATES)[number];
  @ApiPropertyOptional({ description: "The previous page's `meta.next_cursor` (opaque)." })
  @Optional()
  @Str({ min: 1, max: 200 })
  cursor?: string;
  @ApiPropertyOptional({ default: 20, description: 'Page size.' })
  @Optional()
  @IntLike({ min: 1, max: 100 })
  limit?: string | number;
}

export class MarkInboxMessageDto {
  @ApiPropertyOptional({ description: 'true: read (its first read time is kept); false: unread again.', example: true })
  @OptionalNotNull()
  @Bool()
  read?: boolean;
  @ApiPropertyOptional({ description: 'true: archived (hidden from the default list); false: back in the inbox.', example: false })
  @OptionalNotNull()
  @Bool()
  archived?: boolean;
}

export class InboxMessageResource {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid', description: 'The send that stored it.' }) notification_id: string;
  @ApiProperty({ example: 'user-1' }) user_id: string;
  @ApiProperty({ type: String, nullable: true, description: "The send's title, in the user's language (docs/api.md#localization).", example: 'Shipped' })
  title: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Your order is on its way' }) body: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'https://cdn.example.com/box.png' }) image_url: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'myapp://orders/42' }) action_url: string | null;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, example: { order_id: '42' } }) data: Record<string, unknown> | null;
  @ApiProperty({ type: String, nullable: true, description: "The send's `options.topic`, null without one.", example: null }) topic: string | null;
  @ApiProperty(TIMESTAMP) created_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When it was first read; null while unread.' }) read_at: string | null;
  @ApiProperty({ ...TIMESTAMP, nullable: true, description: 'When it was archived; null in the inbox.' }) archived_at: string | null;
  @ApiProperty({ ...TIMESTAMP, description: "`created_at` plus the app's inbox days; then it disappears." }) expires_at: string | null;
}

export class InboxMessageEnvelope {
  @ApiProperty({ type: () => InboxMessageResource }) data: InboxMessageResource;
}

export class InboxPageMeta {
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.' }) next_cursor: string | null;
  @ApiProperty({ type: 'integer', description: "The user's unread messages (not archived, not expired).", example: 3 }) unread: number;
}

export class InboxPage {
  @ApiProperty({ type: () => [InboxMessageResource] }) data: InboxMessageResource[];
  @ApiProperty({ type: () => InboxPageMeta }) meta: InboxPageMeta;
}

export class ReadAllResult {
  @ApiProperty({ type: 'integer', description: 'Messages marked read now.', example: 3 }) updated: number;
}

export class ReadAllEnvelope {
  @ApiProperty({ type: () => ReadAllResult }) data: ReadAllResult;
}

/** Fails to compile when the documented fields drift from what the API returns. */
export type InboxDocMatches = [Expect<SameKeys<InboxMessageResource, MappedMessage>>];
