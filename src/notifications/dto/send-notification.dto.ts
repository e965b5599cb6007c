import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Platform, PLATFORMS } from '../../installations/installation.entity';
import { CHANNELS, NOTIFICATION_CATEGORIES, RECIPIENT_KINDS } from '../../common/vocabulary';
import { AudienceFilter, type FilterNode } from '../../common/audience-filter';
import { DescribeObject, Optional, OptionalNotNull, Required, RequiredNaming, rule } from '../../common/validation/framework';
import {
  Bool,
  checkIn,
  checkString,
  ExactlyOneOf,
  In,
  Instant,
  Int,
  List,
  Nested,
  NestedList,
  Num,
  PlainObject,
  Str,
  True,
  WithSiblings,
} from '../../common/validation/rules';
import { ATTRIBUTES_TYPE_NAME, HttpsUrl, LinkUrl, TAG, TOPIC_KEY } from '../../common/validation/domain-rules';
import { NotificationOptions } from '../notification.entity';
import type { AbTestOptions } from '../../common/notification-options';
import { AB_METRICS, AB_SAMPLE_PERCENT, VARIANT_KEY, VARIANT_WEIGHT, VARIANTS_MAX, VARIANTS_MIN, winnerAfterMs } from '../../common/variants';
import {
  ANDROID_PROXIES,
  ANDROID_VISIBILITIES,
  AndroidOptions,
  ApnsOptions,
  INTERRUPTION_LEVELS,
  THROTTLE_PER_MINUTE,
  LiveActivityStartOptions,
  WEB_URGENCIES,
  WebAction,
  WebOptions,
} from '../../common/notification-options';
import { RequiredUnless } from '../../common/validation/framework';
import { type LocalizedContent, Localizations, reservedDataKey } from '../../common/validation/content-rules';

export { type LocalizedContent, Localizations, reservedDataKey };

// Types, bounds and patterns in the OpenAPI document come from the validation rules
// (common/validation/); @ApiProperty here adds only descriptions and examples.

export const RECIPIENTS_MESSAGE =
  'Exactly one of recipients.user_ids, recipients.installation_ids, recipients.tags, recipients.filter, recipients.all or recipients.topic is required.';

/** Exactly one key (docs/api.md#recipients). */
@DescribeObject({ minProperties: 1, maxProperties: 1 })
export class RecipientsDto {
  /** 1..10,000 external user ids of 1..255 characters; duplicates are collapsed. */
  @ApiPropertyOptional({
    description: 'Your user ids (1 to 255 characters each); duplicates are collapsed. Every eligible installation of these users receives the notification.',
    example: ['user-1', 'user-2'],
  })
  @OptionalNotNull()
  @List({ min: 1, max: 10_000, item: checkString({ min: 1, max: 255 }) })
  user_ids?: string[];
  @ApiPropertyOptional({
    description: 'Installation ids (yours, 1 to 255 characters each); duplicates are collapsed, ids the app does not know are ignored.',
    example: ['inst-1'],
  })
  @OptionalNotNull()
  @List({ min: 1, max: 10_000, item: checkString({ min: 1, max: 255 }) })
  installation_ids?: string[];
  @ApiPropertyOptional({ description: 'Installations carrying at least one of these tags.', example: ['beta'] })
  @OptionalNotNull()
  @List({ min: 1, max: 10, item: TAG })
  tags?: string[];
  @ApiPropertyOptional({ description: 'Installations that match this audience filter (docs/api.md#audience-filters).' })
  @OptionalNotNull()
  @AudienceFilter()
  filter?: FilterNode;
  @ApiPropertyOptional({ description: 'Every installation of the app.', example: true })
  @OptionalNotNull()
  @True()
  all?: true;
  @ApiPropertyOptional({
    description: 'The installations of the users subscribed to this topic (docs/api.md#topics-and-preferences); implies options.topic. The topic must exist.',
    example: 'promotions',
  })
  @OptionalNotNull()
  @rule('topicKey', TOPIC_KEY)
  topic?: string;
}

export class NotificationContentDto {
  @ApiProperty({ example: 'Shipped' })
  @Required()
  @Str({ min: 1, max: 256 })
  title: string;
  @ApiProperty({ example: 'Your order is on its way' })
  @Required()
  @Str({ min: 1, max: 4000 })
  body: string;
  @ApiPropertyOptional({ description: 'An absolute https:// URL.', example: 'https://cdn.example.com/box.png' })
  @Optional()
  @HttpsUrl(2048)
  image_url?: string | null;
  @ApiPropertyOptional({ description: 'An absolute URL or an app deep link (scheme://...).', example: 'myapp://orders/42' })
  @Optional()
  @LinkUrl(2048)
  action_url?: string | null;
  @ApiPropertyOptional({
    description:
      'Variants by BCP 47 language tag (at most 50). Each installation gets the best match for its `device.locale`; a field the variant lacks comes from the default fields.',
    example: { fr: { title: 'Expédiée', body: 'Votre commande est en route' } },
  })
  @Optional()
  @Localizations()
  localizations?: Record<string, LocalizedContent> | null;
}

/** iOS only (docs/api.md#platform-fields). */
export class ApnsOptionsDto implements ApnsOptions {
  @ApiPropertyOptional({ description: '`aps.interruption-level`.', example: 'time-sensitive' })
  @OptionalNotNull()
  @In(INTERRUPTION_LEVELS)
  interruption_level?: ApnsOptions['interruption_level'];
  @ApiPropertyOptional({ description: '`aps.relevance-score`: how the summary ranks it.', example: 0.8 })
  @OptionalNotNull()
  @Num({ min: 0, max: 1 })
  relevance_score?: number;
  @ApiPropertyOptional({ description: '`aps.thread-id`: groups notifications.', example: 'order-42' })
  @OptionalNotNull()
  @Str({ min: 1, max: 64 })
  thread_id?: string;
  @ApiPropertyOptional({ description: "`aps.category`: one of the app's registered categories, with its buttons.", example: 'ORDER_UPDATE' })
  @OptionalNotNull()
  @Str({ min: 1, max: 64 })
  category?: string;
  @ApiPropertyOptional({ description: '`aps.target-content-id`: the window to bring forward.', example: 'orders' })
  @OptionalNotNull()
  @Str({ min: 1, max: 64 })
  target_content_id?: string;
  @ApiPropertyOptional({ description: '`aps.alert.subtitle`.', example: 'Order 42' })
  @OptionalNotNull()
  @Str({ min: 1, max: 256 })
  subtitle?: string;
}

/** FCM only: each to the `android.notification` field of the same name (docs/api.md#platform-fields). */
export class AndroidOptionsDto implements AndroidOptions {
  @ApiPropertyOptional({ example: 'orders' })
  @OptionalNotNull()
  @Str({ min: 1, max: 64 })
  channel_id?: string;
  @ApiPropertyOptional({ description: 'Replaces an earlier notification with the same tag.', example: 'order-42' })
  @OptionalNotNull()
  @Str({ min: 1, max: 64 })
  tag?: string;
  @ApiPropertyOptional({ example: '#FF5722' })
  @OptionalNotNull()
  @Str({ min: 7, max: 7, pattern: /^#[0-9A-Fa-f]{6}$/, patternMessage: 'The :attribute field must be a colour in the form #RRGGBB.' })
  color?: string;
  @ApiPropertyOptional({ example: 'ic_stat_order' })
  @OptionalNotNull()
  @Str({ min: 1, max: 64 })
  icon?: string;
  @ApiPropertyOptional({ example: 'OPEN_ORDER' })
  @OptionalNotNull()
  @Str({ min: 1, max: 255 })
  click_action?: string;
  @ApiPropertyOptional({ description: 'Sent in upper case.', example: 'private' })
  @OptionalNotNull()
  @In(ANDROID_VISIBILITIES)
  visibility?: AndroidOptions['visibility'];
  @ApiPropertyOptional({ description: 'FCM `android.notification.proxy` (Android 12+), sent in upper case.', example: 'if_priority_lowered' })
  @OptionalNotNull()
  @In(ANDROID_PROXIES)
  proxy?: AndroidOptions['proxy'];
  @ApiPropertyOptional({
    description: 'FCM `android.bandwidth_constrained_ok`: may be delivered while the device is in bandwidth constrained mode.',
    example: true,
  })
  @OptionalNotNull()
  @Bool()
  bandwidth_constrained_ok?: boolean;
  @ApiPropertyOptional({
    description: 'FCM `android.restricted_satellite_ok`: may be delivered while the device is on a restricted satellite network.',
    example: true,
  })
  @OptionalNotNull()
  @Bool()
  restricted_satellite_ok?: boolean;
  @ApiPropertyOptional({ description: 'FCM `android.direct_boot_ok`: delivered to the app while the device is in direct boot mode.', example: true })
  @OptionalNotNull()
  @Bool()
  direct_boot_ok?: boolean;
}

/** A web notification's button. */
export class WebActionDto implements WebAction {
  @ApiProperty({ description: 'Reported as `action` with the `opened` event.', example: 'track' })
  @Required()
  @Str({ min: 1, max: 64 })
  action: string;
  @ApiProperty({ example: 'Track' })
  @Required()
  @Str({ min: 1, max: 64 })
  title: string;
  @ApiPropertyOptional({ description: 'Opened by a click on the button; else `notification.action_url`.', example: 'https://shop.example.com/orders/42' })
  @OptionalNotNull()
  @LinkUrl(2048)
  url?: string;
}

/** Web Push only (docs/api.md#platform-fields). */
@DescribeObject({ 'x-requires': { renotify: 'tag' } })
export class WebOptionsDto implements WebOptions {
  @ApiPropertyOptional({ example: 'https://cdn.example.com/icon.png' })
  @OptionalNotNull()
  @HttpsUrl(2048)
  icon?: string;
  @ApiPropertyOptional({ description: 'The small monochrome image.', example: 'https://cdn.example.com/badge.png' })
  @OptionalNotNull()
  @HttpsUrl(2048)
  badge?: string;
  @ApiPropertyOptional({ example: 'order-42' })
  @OptionalNotNull()
  @Str({ min: 1, max: 64 })
  tag?: string;
  @ApiPropertyOptional({ example: false })
  @OptionalNotNull()
  @Bool()
  require_interaction?: boolean;
  @ApiPropertyOptional({ description: 'Alert again when replacing a notification with the same `tag` (requires `tag`).', example: true })
  @OptionalNotNull()
  @Bool()
  @WithSiblings('renotifyNeedsTag', (_value, web) => (web.tag === undefined ? 'The :attribute field requires options.web.tag.' : null))
  renotify?: boolean;
  @ApiPropertyOptional({ example: false })
  @OptionalNotNull()
  @Bool()
  silent?: boolean;
  @ApiPropertyOptional({ description: 'The `Urgency` header; overrides the one `priority` implies.', example: 'low' })
  @OptionalNotNull()
  @In(WEB_URGENCIES)
  urgency?: WebOptions['urgency'];
  @ApiPropertyOptional({ description: 'One or two buttons.' })
  @OptionalNotNull()
  @NestedList(() => WebActionDto, { min: 1, max: 2 })
  actions?: WebActionDto[];
  @ApiPropertyOptional({
    description:
      'Sends web installations the declarative payload (docs/api.md#declarative-web-push), which Safari 18.4+ shows without a service worker: ' +
      '`notification.action_url` becomes its `navigate` and is then required; `options.badge` its `app_badge`, `silent` its own.',
    example: true,
  })
  @OptionalNotNull()
  @Bool()
  declarative?: boolean;
}

/** `options.live_activity` (docs/api.md#live-activity-starts): what an `event: start` push carries. */
export class LiveActivityStartOptionsDto implements LiveActivityStartOptions {
  @ApiProperty({
    description: 'The Swift ActivityAttributes type to start; installations holding a start token for it receive it.',
    example: 'DeliveryAttributes',
  })
  @Required()
  @rule('attributesType', ATTRIBUTES_TYPE_NAME)
  attributes_type: string;
  @ApiProperty({ description: 'The static attributes of the activity, as your Swift type decodes them.', example: { order_id: '42' } })
  @Required()
  @PlainObject({ maxBytes: 4096 })
  attributes: Record<string, unknown>;
  @ApiProperty({ description: 'Its first ContentState.', example: { status: 'preparing', eta_minutes: 20 } })
  @Required()
  @PlainObject({ maxBytes: 4096 })
  content_state: Record<string, unknown>;
  @ApiPropertyOptional({ example: '2026-11-22T11:00:00.000Z' })
  @OptionalNotNull()
  @Instant()
  stale_date?: string;
  @ApiPropertyOptional({ example: 0.5 })
  @OptionalNotNull()
  @Num({ min: 0, max: 1 })
  relevance_score?: number;
  @ApiPropertyOptional({ description: 'A broadcast channel id (iOS 18) the started activities listen to; without it each gets an update token.' })
  @OptionalNotNull()
  @Str({ min: 1, max: 255 })
  channel_id?: string;
}

/** `options.ab_test` (docs/api.md#a-b-test-with-a-winner). */
export class AbTestDto implements AbTestOptions {
  @ApiProperty({ description: 'The share of the audience (1 to 50 %) sent first, split by weight.', example: 10 })
  @Required()
  @Int(AB_SAMPLE_PERCENT)
  sample_percent: number;
  @ApiProperty({ description: "When the winner is decided, after the sample's fan-out began: `<n>m` or `<n>h`, 5 minutes to 72 hours.", example: '4h' })
  @Required()
  @Str({ min: 2, max: 6 })
  @WithSiblings('winnerAfter', (value) =>
    typeof value === 'string' && winnerAfterMs(value) === null
      ? 'The :attribute field must be a duration of minutes or hours (such as 30m or 4h), from 5 minutes to 72 hours.'
      : null,
  )
  winner_after: string;
  @ApiProperty({ enum: AB_METRICS, description: 'What the winner has the most of, per accepted message.', example: 'opened' })
  @Required()
  @In(AB_METRICS)
  metric: AbTestOptions['metric'];
}

// JSON Schema 3.0 cannot say "not both" without `not`: the rule, for tools that read it.
@DescribeObject({
  'x-exclusive': [
    ['badge', 'badge_increment'],
    ['content_available', 'live_activity'],
    ['widgets', 'content_available'],
    ['widgets', 'live_activity'],
  ],
})
export class NotificationOptionsDto implements NotificationOptions {
  @ApiPropertyOptional({ description: 'Seconds the providers keep trying to reach an offline device.', example: 3600 })
  @OptionalNotNull()
  @Int({ min: 0, max: 2_419_200 })
  ttl?: number;
  @ApiPropertyOptional({ example: 'high' })
  @OptionalNotNull()
  @In(['high', 'normal'])
  priority?: 'high' | 'normal';
  @ApiPropertyOptional({
    description: 'Replaces an earlier notification with the same id on the device; defaults to the notification id.',
    example: 'order-42',
  })
  @OptionalNotNull()
  @Str({ min: 1, max: 64 })
  collapse_id?: string;
  @ApiPropertyOptional({ description: 'iOS app icon badge.', example: 1 })
  @OptionalNotNull()
  @Int({ min: 0, max: 2_147_483_647 })
  badge?: number;
  @ApiPropertyOptional({
    description: "iOS: added to the installation's badge count when its message is built (never below 0); not with `badge`.",
    example: 1,
  })
  @OptionalNotNull()
  @Int({ min: -99, max: 99, not: 0 })
  @WithSiblings('badgeIncrement', (_value, options) =>
    options.badge !== undefined ? 'The :attribute field must not be given together with options.badge.' : null,
  )
  badge_increment?: number;
  @ApiPropertyOptional({ example: 'default' })
  @OptionalNotNull()
  @Str({ min: 1, max: 255 })
  sound?: string;
  @ApiPropertyOptional({ description: 'Only these platforms; all when absent.', example: ['ios', 'android'] })
  @OptionalNotNull()
  @List({ min: 1, max: 3, item: checkIn(PLATFORMS) })
  platforms?: Platform[];
  @ApiPropertyOptional({
    description:
      "Deliver at this wall-clock time (24-hour HH:MM) in each installation's device.timezone (UTC when missing or invalid), at its first occurrence at or after send_at (or acceptance).",
    example: '09:00',
  })
  @OptionalNotNull()
  @Str({ min: 5, max: 5, pattern: /^(?:[01]\d|2[0-3]):[0-5]\d$/, patternMessage: 'The :attribute field must be a 24-hour time of day, HH:MM.' })
  local_time?: string;
  @ApiPropertyOptional({
    description: 'A background push: without `notification`, nothing is shown (web installations are skipped as SilentNotSupported).',
    example: true,
  })
  @OptionalNotNull()
  @Bool()
  content_available?: boolean;
  @ApiPropertyOptional({
    description:
      'Pace the send: at most this many messages reach the providers per minute, spread evenly within each minute; the send completes later accordingly and can be cancelled midway.',
    example: 6000,
  })
  @OptionalNotNull()
  @Int(THROTTLE_PER_MINUTE)
  throttle_per_minute?: number;
  @ApiPropertyOptional({
    description: "`transactional` (the default) or `marketing`: the app's frequency cap and quiet hours apply to marketing sends only (docs/api.md#pacing).",
    example: 'marketing',
  })
  @OptionalNotNull()
  @In(NOTIFICATION_CATEGORIES)
  category?: NotificationOptions['category'];
  @ApiPropertyOptional({
    description:
      'Labels the send with a topic of the app (docs/api.md#topics-and-preferences): users not subscribed to it get nothing (skipped as Unsubscribed). The topic must exist; recipients.topic implies it (and must then name the same).',
    example: 'promotions',
  })
  @OptionalNotNull()
  @rule('topicKey', TOPIC_KEY)
  topic?: string;
  @ApiPropertyOptional({
    description:
      'Everything but the delivery: validation, fan-out, trace, statistics and webhooks. FCM validates each message (`validate_only`); nothing reaches a device, and every delivery that would have been sent ends skipped as DryRun.',
    example: true,
  })
  @OptionalNotNull()
  @Bool()
  dry_run?: boolean;
  @OptionalNotNull() @Nested(() => ApnsOptionsDto) apns?: ApnsOptionsDto;
  @OptionalNotNull() @Nested(() => AndroidOptionsDto) android?: AndroidOptionsDto;
  @OptionalNotNull() @Nested(() => WebOptionsDto) web?: WebOptionsDto;
  @ApiPropertyOptional({
    description:
      'Starts a Live Activity (iOS) on each installation holding a push-to-start token for its type (docs/api.md#live-activity-starts); needs `notification`.',
  })
  @OptionalNotNull()
  @Nested(() => LiveActivityStartOptionsDto)
  @WithSiblings('liveActivity', (_value, options) =>
    options.content_available !== undefined ? 'The :attribute field must not be given together with options.content_available.' : null,
  )
  live_activity?: LiveActivityStartOptionsDto;
  @ApiPropertyOptional({
    description:
      'A WidgetKit push (docs/api.md#widgets): without `notification` or `data`, each iOS installation holding a `widget_push_token` reloads its widgets; ' +
      'iOS installations without one are skipped as NoWidgetToken, the other platforms as PlatformExcluded.',
    example: true,
  })
  @OptionalNotNull()
  @Bool()
  @WithSiblings('widgets', (value, options) =>
    value === true && (options.content_available !== undefined || options.live_activity !== undefined)
      ? 'The :attribute field must not be given together with options.content_available or options.live_activity.'
      : null,
  )
  widgets?: boolean;
  @ApiPropertyOptional({
    description:
      'Where the send goes: `push` (the devices) and/or `inbox` (one inbox message per user reached, docs/api.md#inbox). `["push"]` when absent; `["inbox"]` alone pushes nothing.',
    example: ['push', 'inbox'],
  })
  @OptionalNotNull()
  @List({ min: 1, max: 2, item: checkIn(CHANNELS) })
  channels?: NotificationOptions['channels'];
  @ApiPropertyOptional({
    description:
      "Makes `notification`'s texts Liquid (docs/api.md#liquid), rendered for each installation with the send's `variables`; without it `{{` is plain text.",
    example: true,
  })
  @OptionalNotNull()
  @Bool()
  personalize?: boolean;
  @ApiPropertyOptional({
    description:
      'With `variants`: an A/B test (docs/api.md#a-b-test-with-a-winner). A sample is sent first, split by weight; at `winner_after` the variant with the highest metric per accepted message goes to everyone else.',
  })
  @OptionalNotNull()
  @Nested(() => AbTestDto)
  ab_test?: AbTestDto;
}

/** `template` (docs/api.md#sending-with-a-template): a template of the app, in place of `notification`. */
export class SendTemplateDto {
  @ApiProperty({ description: 'The template key.', example: 'order_shipped' })
  @Required()
  @rule('topicKey', TOPIC_KEY)
  key: string;
  @ApiPropertyOptional({ description: 'A version of it; absent: the latest.', example: 2 })
  @OptionalNotNull()
  @Int({ min: 1, max: 2_147_483_647 })
  version?: number;
  @ApiPropertyOptional({ description: 'Rendered as `vars.*`; at most 4 KiB as JSON.', example: { first_name: 'Ann', order_id: '42' } })
  @OptionalNotNull()
  @PlainObject({ maxBytes: 4096 })
  variables?: Record<string, unknown>;
}

export const VARIANT_CONTENT_MESSAGE = 'Each variant needs exactly one of notification or template.';

/** One of `variants` (docs/api.md#variants): its own notification or a template, in place of the send's. */
export class VariantDto {
  @ApiProperty({ description: 'Its name: 1 to 16 of a-z, 0-9 and _, unique in the send.', example: 'short' })
  @Required()
  @Str({ min: 1, max: 16, pattern: VARIANT_KEY, patternMessage: 'The :attribute field may contain only a-z, 0-9 and _.' })
  key: string;
  @ApiProperty({ description: 'Its share of the audience, relative to the others (1 to 100).', example: 50 })
  @Required()
  @Int(VARIANT_WEIGHT)
  weight: number;
  @ApiPropertyOptional({ description: 'Its texts (as `notification`); or give `template`.' })
  @RequiredUnless((variant: VariantDto) => variant.template !== undefined && variant.template !== null, VARIANT_CONTENT_MESSAGE)
  @Nested(() => NotificationContentDto)
  notification?: NotificationContentDto;
  @ApiPropertyOptional({ description: 'A template of the app (as `template`); or give `notification`.' })
  @OptionalNotNull()
  @Nested(() => SendTemplateDto)
  @WithSiblings('variantTemplateNotNotification', (_value, variant) =>
    variant.notification !== undefined && variant.notification !== null ? 'The :attribute field must not be given together with notification.' : null,
  )
  template?: SendTemplateDto;
}

export const NOTIFICATION_REQUIRED_MESSAGE = 'The notification field is required unless options.content_available or options.widgets is true.';
export const WIDGETS_PROHIBIT_MESSAGE = 'The :attribute field is prohibited when options.widgets is true: a widget push carries only content-changed.';

const isWidgets = (body: Record<string, unknown>) => (body.options as NotificationOptionsDto | null | undefined)?.widgets === true;
/** A silent send (docs/api.md#silent-sends) or a widget push (docs/api.md#widgets) leaves `notification` out. */
const isSilent = (body: SendNotificationDto) => body.options?.content_available === true || isWidgets(body as unknown as Record<string, unknown>);
/** A send from a template (docs/api.md#sending-with-a-template) takes its texts from it. */
const fromTemplate = (body: SendNotificationDto) => body.template !== undefined && body.template !== null;
/** A send with variants (docs/api.md#variants) takes its texts from them. */
const withVariants = (body: SendNotificationDto) => Array.isArray(body.variants);
/** Variants stand in place of notification and template, with unique keys. */
function variantsProblem(value: unknown, body: Record<string, unknown>): string | null {
  if (!Array.isArray(value)) return null; // the list rule reports it
  if ((body.notification ?? null) !== null || (body.template ?? null) !== null) {
    return 'The :attribute field must not be given together with notification or template.';
  }
  const keys = value.map((variant: { key?: unknown }) => variant?.key).filter((key) => typeof key === 'string');
  return new Set(keys).size < keys.length ? 'The :attribute field must not name a variant key twice.' : null;
}
const notWithWidgets = (name: string) => WithSiblings(name, (_value, body) => (isWidgets(body) ? WIDGETS_PROHIBIT_MESSAGE : null));

/** POST /notifications (docs/api.md#send). */
@DescribeObject({
  'x-required-unless': { notification: ['options.content_available', 'options.widgets'] },
  'x-prohibited-if': { notification: 'options.widgets', data: 'options.widgets' },
})
export class SendNotificationDto {
  @RequiredNaming('user_ids') @Nested(() => RecipientsDto) @ExactlyOneOf(RECIPIENT_KINDS, RECIPIENTS_MESSAGE) recipients: RecipientsDto;
  @RequiredUnless((body: SendNotificationDto) => isSilent(body) || fromTemplate(body) || withVariants(body), NOTIFICATION_REQUIRED_MESSAGE)
  @notWithWidgets('notificationNotWithWidgets')
  @Nested(() => NotificationContentDto)
  notification?: NotificationContentDto | null;
  /** Delivered to the device as custom data; at most 4 KiB as JSON. */
  @ApiPropertyOptional({
    description:
      'Custom data delivered to the device, at most 4 KiB as JSON. Reserved keys, in any case: `notification_id`, `action_url`, `from`, `message_type`, `collapse_key`, `notification`, `google.*`, `gcm.*`.',
    example: { order_id: 42 },
  })
  @Optional()
  @PlainObject({ maxBytes: 4096, reservedKey: reservedDataKey })
  @notWithWidgets('dataNotWithWidgets')
  data?: Record<string, unknown> | null;
  @ApiPropertyOptional({ description: 'A template of the app in place of `notification` (not both).' })
  @OptionalNotNull()
  @Nested(() => SendTemplateDto)
  @WithSiblings('templateNotNotification', (_value, body) =>
    body.notification !== undefined && body.notification !== null ? 'The :attribute field must not be given together with notification.' : null,
  )
  template?: SendTemplateDto;
  @ApiPropertyOptional({
    description: "With `options.personalize`: rendered as `vars.*` in the notification's texts (docs/api.md#liquid); at most 4 KiB as JSON.",
    example: { first_name: 'Ann' },
  })
  @OptionalNotNull()
  @PlainObject({ maxBytes: 4096 })
  variables?: Record<string, unknown>;
  @ApiPropertyOptional({
    description:
      'In place of `notification` or `template`: 2 to 5 variants; each user (an installation without a user: each installation) gets one, chosen from the notification id and the user id, in proportion to the weights (docs/api.md#variants).',
  })
  @OptionalNotNull()
  @NestedList(() => VariantDto, { min: VARIANTS_MIN, max: VARIANTS_MAX })
  @WithSiblings('variantsAlone', (value, body) => variantsProblem(value, body))
  variants?: VariantDto[];
  @Optional() @Nested(() => NotificationOptionsDto) options?: NotificationOptionsDto | null;
  @ApiPropertyOptional({
    description: 'Fan out no earlier than this (at most 30 days ahead); a time in the past means now. Absent or null: now.',
    example: '2026-12-01T09:00:00.000Z',
  })
  @Optional()
  @Instant({ maxDaysAhead: 30 })
  send_at?: string | null;
}
