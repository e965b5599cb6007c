import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { PERMISSIONS, type Permission, type Platform, PLATFORMS } from '../installation.entity';
import { PUSH_PROVIDER_NAMES, type PushProviderName } from '../../common/platform';
import { DescribeObject, Optional, OptionalNotNull } from '../../common/validation/framework';
import { Base64Url, In, Int, List, Nested, Str } from '../../common/validation/rules';
import { rule } from '../../common/validation/framework';
import { APNS_TOKEN, LiveActivityStartTokens, Properties, PropertyValue, SAFE_NUMBER_BOUNDS, TAG, WebPushEndpoint } from '../../common/validation/domain-rules';
import { webPushHosts } from '../../config/web-push-hosts';

const TAGS_DESCRIPTION =
  'Replaces the whole set of tags: at most 100, each 1 to 64 characters of `A-Z a-z 0-9 _ . : -`. Stored sorted, without duplicates; `[]` removes them all.';

const BADGE_DESCRIPTION =
  "iOS: sets the installation's badge count, which sends' `options.badge_increment` add to (docs/api.md#badge-arithmetic); call it with 0 when the app is opened. Ignored on other platforms.";

const START_TOKENS_DESCRIPTION =
  'iOS only: push-to-start tokens by ActivityAttributes type name (docs/api.md#live-activity-start-tokens), from `Activity<T>.pushToStartTokenUpdates`: ' +
  'at most 10 entries, each type 1 to 128 characters of `A-Z a-z 0-9 _ .`, each token 64 to 200 hex characters. Replaces the whole object; `{}` clears it. ' +
  'Write-only: the resource shows `live_activity_types`.';
const WIDGET_TOKEN_DESCRIPTION =
  'iOS only: the WidgetKit push token (docs/api.md#widgets), from `WidgetPushInfo.token`, 64 to 200 hex characters; replaces the stored one. ' +
  'Write-only: the resource shows `has_widget_token`.';
const WIDGET_TOKEN_EXAMPLE = '5c1fe3a7b0d24c6e8f7a9b1c3d5e7f905c1fe3a7b0d24c6e8f7a9b1c3d5e7f90';
const START_TOKENS_EXAMPLE = { DeliveryAttributes: '80f6a2bd0c7d4e3c8f5b1e4d9a6c2f7e80f6a2bd0c7d4e3c8f5b1e4d9a6c2f7e' };

const PROPERTIES_EXAMPLE = { plan: 'pro', purchases: 3, beta: true };

const PUSH_PROVIDER_DESCRIPTION =
  'The push service (docs/api.md#push-provider). Android: `fcm` (with `push_token`, the default) or `unifiedpush` (with `web_push_subscription`, ' +
  "the distributor's endpoint and keys: docs/api.md#unifiedpush); giving the other one switches the installation over. Other platforms: their own " +
  '(`apns` for ios, `web_push` for web, `hms` for huawei), which may be given. Absent: the one the installation has.';

const USER_ID_HASH_DESCRIPTION =
  'With identity verification on (docs/api.md "Identity verification"), required with a token lacking `installations:identify` to set `user_id`, ' +
  "and to give an installation bound to a user another push token, subscription or start token (then the bound user's hash): " +
  "lower-case hex of HMAC-SHA256(the app's identity secret, user_id), computed by your backend at login. Not stored.";
const USER_ID_HASH_EXAMPLE = '5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592';

// Types, bounds and patterns in the OpenAPI document come from the validation rules
// (common/validation/); @ApiProperty here adds only descriptions and examples.

export class DeviceDto {
  @ApiPropertyOptional({ example: '1.4.0' })
  @Optional()
  @Str({ max: 255 })
  app_version?: string | null;
  @ApiPropertyOptional({ example: '18.1' })
  @Optional()
  @Str({ max: 255 })
  os_version?: string | null;
  @ApiPropertyOptional({ example: 'iPhone16,1' })
  @Optional()
  @Str({ max: 255 })
  model?: string | null;
  @ApiPropertyOptional({ example: 'en_GB' })
  @Optional()
  @Str({ max: 255 })
  locale?: string | null;
  @ApiPropertyOptional({ example: 'Europe/London' })
  @Optional()
  @Str({ max: 255 })
  timezone?: string | null;
}

export class WebPushKeysDto {
  /** The subscriber's uncompressed P-256 public key (65 bytes). */
  @ApiProperty({
    description: "The subscriber's uncompressed P-256 public key (65 bytes), base64url.",
    example: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
  })
  @Base64Url(65)
  p256dh: string;
  /** The 16-byte authentication secret. */
  @ApiProperty({ description: 'The 16-byte authentication secret, base64url.', example: 'tBHItJI5svbpez7KI4CCXg' })
  @Base64Url(16)
  auth: string;
}

/** A browser's `PushSubscription.toJSON()`; `expirationTime` is accepted and ignored. */
export class WebPushSubscriptionDto {
  @ApiProperty({
    description: 'The push service URL: https, on the allow-list (WEB_PUSH_ALLOWED_HOSTS).',
    example: 'https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bH',
  })
  @WebPushEndpoint(2048, webPushHosts)
  endpoint: string;
  @Nested(() => WebPushKeysDto) keys: WebPushKeysDto;
  @ApiPropertyOptional({ description: 'Accepted and ignored.', nullable: true, type: Number, ...SAFE_NUMBER_BOUNDS })
  @Allow()
  expirationTime?: unknown;
}

/** PUT /installations/{id}: register or refresh. */
export class RegisterInstallationDto {
  @ApiPropertyOptional({
    description:
      'Delivery channel: `ios` (APNs), `android` (FCM), `web` (Web Push) or `huawei` (Huawei Push Kit). Required on creation; cannot change afterwards.',
    example: 'ios',
  })
  @OptionalNotNull()
  @In(PLATFORMS)
  platform?: Platform;
  @ApiPropertyOptional({ description: PUSH_PROVIDER_DESCRIPTION, example: 'unifiedpush' })
  @OptionalNotNull()
  @In(PUSH_PROVIDER_NAMES)
  push_provider?: PushProviderName;
  @ApiPropertyOptional({
    description:
      'APNs device token (hex) for ios, FCM registration token for android, Huawei Push Kit token (at most 512 characters) for huawei; required on creation for them. Write-only: never returned.',
    example: '740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad',
  })
  @OptionalNotNull()
  @Str({ min: 1, max: 4096 })
  push_token?: string;
  @ApiPropertyOptional({
    description:
      "Required on creation for web, and for android with `push_provider: unifiedpush` (the distributor's endpoint and keys). Write-only: never returned.",
  })
  @OptionalNotNull()
  @Nested(() => WebPushSubscriptionDto)
  web_push_subscription?: WebPushSubscriptionDto;
  @ApiPropertyOptional({ description: 'Merged into the stored device; `null` clears a field.' })
  @OptionalNotNull()
  @Nested(() => DeviceDto)
  device?: DeviceDto;
  /** null detaches the installation from its user. */
  @ApiPropertyOptional({ description: 'Your user id; `null` detaches the installation.', example: 'user-1' })
  @Optional()
  @Str({ min: 1, max: 255 })
  user_id?: string | null;
  @ApiPropertyOptional({ description: USER_ID_HASH_DESCRIPTION, example: USER_ID_HASH_EXAMPLE })
  @OptionalNotNull()
  @Str({ min: 64, max: 64 })
  user_id_hash?: string;
  @ApiPropertyOptional({ description: 'Push permission as the client reports it; `unknown` on creation when absent.', example: 'granted' })
  @OptionalNotNull()
  @In(PERMISSIONS)
  permission?: Permission;
  @ApiPropertyOptional({ description: TAGS_DESCRIPTION, example: ['beta', 'plan:pro'] })
  @OptionalNotNull()
  @List({ max: 100, item: TAG })
  tags?: string[];
  @ApiPropertyOptional({ description: BADGE_DESCRIPTION, example: 0 })
  @OptionalNotNull()
  @Int({ min: 0, max: 99_999 })
  badge?: number;
  @ApiPropertyOptional({
    description:
      'Replaces the whole set of properties (docs/api.md#properties): at most 50 keys of `[a-z][a-z0-9_]{0,63}`, each a string (at most 255 characters), a finite number or a boolean; `{}` removes them all.',
    example: PROPERTIES_EXAMPLE,
  })
  @OptionalNotNull()
  @Properties()
  properties?: Record<string, PropertyValue | null>;
  @ApiPropertyOptional({ description: START_TOKENS_DESCRIPTION, example: START_TOKENS_EXAMPLE })
  @OptionalNotNull()
  @LiveActivityStartTokens()
  live_activity_start_tokens?: Record<string, string>;
  @ApiPropertyOptional({ description: WIDGET_TOKEN_DESCRIPTION, example: WIDGET_TOKEN_EXAMPLE })
  @OptionalNotNull()
  @rule('apnsToken', APNS_TOKEN)
  widget_push_token?: string;
}

/** PATCH /installations/{id}: every field optional, at least one present (checked by the service). */
@DescribeObject({ minProperties: 1 })
export class UpdateInstallationDto {
  @ApiPropertyOptional({ description: 'Your user id; `null` detaches the installation.', example: 'user-2' })
  @Optional()
  @Str({ min: 1, max: 255 })
  user_id?: string | null;
  @ApiPropertyOptional({ description: USER_ID_HASH_DESCRIPTION, example: USER_ID_HASH_EXAMPLE })
  @OptionalNotNull()
  @Str({ min: 64, max: 64 })
  user_id_hash?: string;
  @ApiPropertyOptional({ example: 'denied' })
  @OptionalNotNull()
  @In(['granted', 'denied'])
  permission?: Exclude<Permission, 'unknown'>;
  @ApiPropertyOptional({ description: PUSH_PROVIDER_DESCRIPTION, example: 'fcm' })
  @OptionalNotNull()
  @In(PUSH_PROVIDER_NAMES)
  push_provider?: PushProviderName;
  @ApiPropertyOptional({ description: 'A new push token (ios/android); clears `invalidated_at`. Write-only.' })
  @OptionalNotNull()
  @Str({ min: 1, max: 4096 })
  push_token?: string;
  @ApiPropertyOptional({ description: 'A new subscription (web, android with UnifiedPush); clears `invalidated_at`. Write-only.' })
  @OptionalNotNull()
  @Nested(() => WebPushSubscriptionDto)
  web_push_subscription?: WebPushSubscriptionDto;
  @ApiPropertyOptional({ description: 'Merged into the stored device; `null` clears a field.' })
  @OptionalNotNull()
  @Nested(() => DeviceDto)
  device?: DeviceDto;
  @ApiPropertyOptional({ description: TAGS_DESCRIPTION, example: ['beta'] })
  @OptionalNotNull()
  @List({ max: 100, item: TAG })
  tags?: string[];
  @ApiPropertyOptional({ description: BADGE_DESCRIPTION, example: 0 })
  @OptionalNotNull()
  @Int({ min: 0, max: 99_999 })
  badge?: number;
  @ApiPropertyOptional({
    description: 'Merged into the stored properties (docs/api.md#properties); a key set to `null` is removed. Keys, values and the limit of 50 as for PUT.',
    example: { plan: 'pro', trial: null },
  })
  @OptionalNotNull()
  @Properties()
  properties?: Record<string, PropertyValue | null>;
  @ApiPropertyOptional({ description: START_TOKENS_DESCRIPTION, example: START_TOKENS_EXAMPLE })
  @OptionalNotNull()
  @LiveActivityStartTokens()
  live_activity_start_tokens?: Record<string, string>;
  @ApiPropertyOptional({ description: WIDGET_TOKEN_DESCRIPTION, example: WIDGET_TOKEN_EXAMPLE })
  @OptionalNotNull()
  @rule('apnsToken', APNS_TOKEN)
  widget_push_token?: string;
}
