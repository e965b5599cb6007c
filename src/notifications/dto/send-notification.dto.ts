import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Platform, PLATFORMS } from '../../installations/installation.entity';
import {
  checkIn,
  checkString,
  HttpsUrl,
  In,
  Int,
  LinkUrl,
  List,
  Nested,
  Optional,
  OptionalNotNull,
  PlainObject,
  Required,
  Str,
} from '../../common/validation/rules';
import { NotificationOptions } from '../notification.entity';

/** Keys the service itself puts into FCM data, or that FCM reserves. */
const RESERVED_DATA_KEY = (key: string) =>
  ['notification_id', 'action_url', 'from', 'message_type', 'collapse_key', 'notification'].includes(key) ||
  key.startsWith('google.') ||
  key.startsWith('gcm.');

// Types, bounds and patterns in the OpenAPI document come from the validation rules
// (common/validation/rules.ts); @ApiProperty here adds only descriptions and examples.

export class RecipientsDto {
  /** 1..10,000 external user ids of 1..255 characters; duplicates are collapsed. */
  @ApiProperty({
    description: 'Your user ids (1 to 255 characters each); duplicates are collapsed. Every eligible installation of these users receives the notification.',
    example: ['user-1', 'user-2'],
  })
  @Required() @List({ min: 1, max: 10_000, item: checkString({ min: 1, max: 255 }) }) user_ids: string[];
}

export class NotificationContentDto {
  @ApiProperty({ example: 'Shipped' })
  @Required() @Str({ min: 1, max: 256 }) title: string;
  @ApiProperty({ example: 'Your order is on its way' })
  @Required() @Str({ min: 1, max: 4000 }) body: string;
  @ApiPropertyOptional({ description: 'An absolute https:// URL.', example: 'https://cdn.example.com/box.png' })
  @Optional() @HttpsUrl(2048) image_url?: string | null;
  @ApiPropertyOptional({ description: 'An absolute URL or an app deep link (scheme://...).', example: 'myapp://orders/42' })
  @Optional() @LinkUrl(2048) action_url?: string | null;
}

export class NotificationOptionsDto implements NotificationOptions {
  @ApiPropertyOptional({ description: 'Seconds the providers keep trying to reach an offline device.', example: 3600 })
  @OptionalNotNull() @Int({ min: 0, max: 2_419_200 }) ttl?: number;
  @ApiPropertyOptional({ example: 'high' })
  @OptionalNotNull() @In(['high', 'normal']) priority?: 'high' | 'normal';
  @ApiPropertyOptional({ description: 'Replaces an earlier notification with the same id on the device; defaults to the notification id.', example: 'order-42' })
  @OptionalNotNull() @Str({ min: 1, max: 64 }) collapse_id?: string;
  @ApiPropertyOptional({ description: 'iOS app icon badge.', example: 1 })
  @OptionalNotNull() @Int({ min: 0, max: 2_147_483_647 }) badge?: number;
  @ApiPropertyOptional({ example: 'default' })
  @OptionalNotNull() @Str({ min: 1, max: 255 }) sound?: string;
  @ApiPropertyOptional({ description: 'Only these platforms; all when absent.', example: ['ios', 'android'] })
  @OptionalNotNull() @List({ min: 1, max: 3, item: checkIn(PLATFORMS) }) platforms?: Platform[];
}

/** POST /notifications (docs/api.md 5.1). */
export class SendNotificationDto {
  /** Missing: the 422 names `recipients.user_ids` too, the form most callers use (docs/api.md 5.1). */
  @Required(['user_ids']) @Nested(() => RecipientsDto) recipients: RecipientsDto;
  @Required() @Nested(() => NotificationContentDto) notification: NotificationContentDto;
  /** Delivered to the device as custom data; at most 4 KiB as JSON. */
  @ApiPropertyOptional({
    description:
      'Custom data delivered to the device, at most 4 KiB as JSON. Reserved keys: `notification_id`, `action_url`, `from`, `message_type`, `collapse_key`, `notification`, `google.*`, `gcm.*`.',
    example: { order_id: 42 },
  })
  @Optional() @PlainObject({ maxBytes: 4096, reservedKeys: RESERVED_DATA_KEY }) data?: Record<string, unknown> | null;
  @Optional() @Nested(() => NotificationOptionsDto) options?: NotificationOptionsDto | null;
}
