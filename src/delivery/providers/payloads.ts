import { createHash } from 'node:crypto';
import { Platform, PLATFORMS, PushProviderName } from '../../common/platform';
import { NotificationOptions } from '../../common/notification-options';
import { LIVE_ACTIVITY_PUSH_TYPE, LIVE_ACTIVITY_TOPIC_SUFFIX, liveActivityPayload, unixSeconds } from './live-activity-payload';
import { encryptedLength } from './web-push-encryption';

/** What each provider receives for one notification (docs/api.md#what-a-device-receives); pure, so the API sizes sends with it. */

export interface PushContent {
  id: string;
  title: string | null;
  body: string | null;
  image_url: string | null;
  action_url: string | null;
  data: Record<string, unknown> | null;
  options: NotificationOptions | null;
  /** By language tag, in request order (docs/api.md#localization). */
  localizations?: Record<string, LocalizedFields> | null;
  /** The language tag of the localization this content is (contentFor); absent for the send's own text. */
  lang?: string;
  /** Present when its texts are Liquid to render per installation (docs/api.md#liquid): the send's variables. */
  personalization?: { variables: Record<string, unknown> | null };
}

export interface LocalizedFields {
  title?: string;
  body?: string;
  image_url?: string;
  action_url?: string;
}

const normalizeTag = (tag: string) => tag.replace(/_/g, '-').toLowerCase();
const languageOf = (tag: string) => tag.split('-')[0];

/** The key of `localizations` that best matches `locale` (docs/api.md#localization): tag, language, same language, else none. */
export function bestLocalization(keys: readonly string[], locale: string | null | undefined): string | null {
  if (!locale || keys.length === 0) return null;
  const wanted = normalizeTag(locale.trim());
  if (!wanted) return null;
  const normalized = keys.map(normalizeTag);
  const language = languageOf(wanted);
  const exact = normalized.indexOf(wanted);
  if (exact >= 0) return keys[exact];
  const languageOnly = normalized.indexOf(language);
  if (languageOnly >= 0) return keys[languageOnly];
  const sameLanguage = normalized.findIndex((key) => languageOf(key) === language);
  return sameLanguage >= 0 ? keys[sameLanguage] : null;
}

/** The content a device with this locale receives: one object per variant, so it is encoded once. */
export function contentFor(content: PushContent, locale: string | null | undefined): PushContent {
  const localizations = content.localizations;
  if (!localizations) return content;
  const key = bestLocalization(Object.keys(localizations), locale);
  if (key === null) return content;
  const variants = encodingsOf(content).variants;
  let variant = variants.get(key);
  if (variant === undefined) variants.set(key, (variant = withVariant(content, localizations[key], key)));
  return variant;
}

export function localizedVariants(content: PushContent): [string, PushContent][] {
  return Object.entries(content.localizations ?? {}).map(([tag, variant]) => [tag, withVariant(content, variant, tag)]);
}

function withVariant(content: PushContent, variant: LocalizedFields, lang: string): PushContent {
  return {
    ...content,
    lang,
    title: variant.title ?? content.title,
    body: variant.body ?? content.body,
    image_url: variant.image_url ?? content.image_url,
    action_url: variant.action_url ?? content.action_url,
  };
}

/** Bytes each provider accepts, as payloadSize counts them; Web Push's 4096 less 103 of aes128gcm (docs/api.md#send). */
export const PAYLOAD_LIMITS: Record<Platform, number> = { ios: 4096, android: 4096, web: 3993, huawei: 4096 };

export const priorityOf = (content: PushContent) => content.options?.priority ?? 'high';

/** Same value on every message of a notification, so a device shows a re-sent one once. */
export const collapseIdOf = (content: PushContent) => content.options?.collapse_id ?? content.id;

const WEB_PUSH_DEFAULT_TTL_SECONDS = 2_419_200;

/** Web Push `TTL`: the notification's, else four weeks, the longest push services keep. */
export const webPushTtlOf = (content: PushContent) => content.options?.ttl ?? WEB_PUSH_DEFAULT_TTL_SECONDS;

export function webPushTopicOf(content: PushContent): string {
  const bytes = content.options?.collapse_id
    ? createHash('sha256').update(content.options.collapse_id).digest().subarray(0, 16)
    : Buffer.from(content.id.replace(/-/g, ''), 'hex');
  return bytes.toString('base64url');
}

export const isBackground = (content: PushContent) => content.title === null;

/** What is encoded from one content object, kept with it: a batch encodes each body once, per delivery only the badge and token. */
interface Encodings {
  variants: Map<string, PushContent>;
  apns?: Buffer;
  apnsByBadge?: Map<number, Buffer>;
  apnsFields?: { topic: string; second: number; list: readonly string[] };
  fcmAfterToken?: string;
  hmsAfterTokens?: string;
  web?: Buffer;
  webFields?: readonly string[];
  unifiedPush?: Buffer;
  unifiedPushFields?: readonly string[];
}

const encodings = new WeakMap<PushContent, Encodings>();

function encodingsOf(content: PushContent): Encodings {
  let found = encodings.get(content);
  if (found === undefined) encodings.set(content, (found = { variants: new Map() }));
  return found;
}

/** The APNs body as bytes, with `badge` (docs/api.md#badge-arithmetic) in place of options.badge when given; cached per badge. */
export function apnsBody(content: PushContent, badge: number | null = null): Buffer {
  // A Live Activity start carries the time it is built (aps.timestamp): never cached.
  if (isLiveActivityStart(content)) return Buffer.from(JSON.stringify(apnsPayload(content)));
  const cached = encodingsOf(content);
  if (badge === null) return (cached.apns ??= Buffer.from(JSON.stringify(apnsPayload(content))));
  const byBadge = (cached.apnsByBadge ??= new Map<number, Buffer>());
  let body = byBadge.get(badge);
  if (body === undefined) byBadge.set(badge, (body = Buffer.from(JSON.stringify(apnsPayload({ ...content, options: { ...content.options, badge } })))));
  return body;
}

/** apnsHeaders and `apns-topic` as node:http2's flat raw list, cached within one second (`apns-expiration` moves). */
export function apnsHeaderFields(content: PushContent, topic: string, nowSeconds = Math.floor(Date.now() / 1000)): readonly string[] {
  const cached = encodingsOf(content);
  const found = cached.apnsFields;
  if (found && found.topic === topic && (found.second === nowSeconds || content.options?.ttl === undefined)) return found.list;
  const list = [...Object.entries(apnsHeaders(content, nowSeconds)).flat(), 'apns-topic', topic];
  cached.apnsFields = { topic, second: nowSeconds, list };
  return list;
}

/** `{"message": fcmMessage(content, token)}` as JSON (with `validate_only` for a dry run), the encoded rest cached. */
export function fcmBody(content: PushContent, token: string): string {
  const cached = encodingsOf(content);
  const prefix = isDryRun(content) ? '{"validate_only":true,"message":{"token":' : '{"message":{"token":';
  cached.fcmAfterToken ??= JSON.stringify(fcmRequest(content, '')).slice(prefix.length + 2);
  return prefix + JSON.stringify(token) + cached.fcmAfterToken;
}

/** Huawei's request for these tokens (docs/api.md#huawei): `{"validate_only", "message": {…, "token": [...]}}`, the rest encoded once. */
export function hmsBody(content: PushContent, tokens: readonly string[]): string {
  const cached = encodingsOf(content);
  if (cached.hmsAfterTokens === undefined) {
    const message = JSON.stringify(hmsMessage(content));
    cached.hmsAfterTokens = `,${message.slice(1)}}`;
  }
  return `{"validate_only":${isDryRun(content)},"message":{"token":${JSON.stringify(tokens)}${cached.hmsAfterTokens}`;
}

const fcmRequest = (content: PushContent, token: string) =>
  isDryRun(content) ? { validate_only: true, message: fcmMessage(content, token) } : { message: fcmMessage(content, token) };

/** The plaintext a push service carries, encoded once per content: UnifiedPush's (docs/api.md#unifiedpush) or the browser's. */
export function webPushBody(content: PushContent, provider: WebPushKind = 'web_push'): Buffer {
  const cached = encodingsOf(content);
  if (provider === 'unifiedpush') return (cached.unifiedPush ??= Buffer.from(JSON.stringify(unifiedPushPayload(content))));
  return (cached.web ??= Buffer.from(JSON.stringify(webPushPayload(content))));
}

/** web-push's request headers but `authorization`, as node:http2's flat list: the same for every subscription of a send. */
export function webPushHeaderFields(content: PushContent, provider: WebPushKind = 'web_push'): readonly string[] {
  const cached = encodingsOf(content);
  const build = () => [
    'ttl',
    String(webPushTtlOf(content)),
    'content-length',
    String(encryptedLength(webPushBody(content, provider).length)),
    'content-type',
    'application/octet-stream',
    'content-encoding',
    'aes128gcm',
    'urgency',
    webPushUrgencyOf(content),
    'topic',
    webPushTopicOf(content),
  ];
  return provider === 'unifiedpush' ? (cached.unifiedPushFields ??= build()) : (cached.webFields ??= build());
}

/** The two payloads RFC 8030 + 8291 + 8292 carry here: a browser's, and an app's through its UnifiedPush distributor. */
export type WebPushKind = Extract<PushProviderName, 'web_push' | 'unifiedpush'>;

export const isDryRun = (content: PushContent) => content.options?.dry_run === true;

/** The badge count a send may reach (docs/api.md#badge-arithmetic). */
export const MAX_BADGE = 99_999;

export const isLiveActivityStart = (content: PushContent) => content.options?.live_activity !== undefined;

/** A WidgetKit push (docs/api.md#widgets): Apple's push type, its topic suffix and its one payload. */
export const isWidgetPush = (content: PushContent) => content.options?.widgets === true;
export const WIDGETS_PUSH_TYPE = 'widgets';
export const WIDGETS_TOPIC_SUFFIX = '.push-type.widgets';

export const apnsTopicOf = (content: PushContent, bundleId: string) =>
  isLiveActivityStart(content) ? `${bundleId}${LIVE_ACTIVITY_TOPIC_SUFFIX}` : isWidgetPush(content) ? `${bundleId}${WIDGETS_TOPIC_SUFFIX}` : bundleId;

export function apnsPayload(content: PushContent, nowSeconds = Math.floor(Date.now() / 1000)): Record<string, unknown> {
  // Apple's WidgetKit push carries this and nothing else.
  if (isWidgetPush(content)) return { aps: { 'content-changed': true } };
  const options = content.options;
  let aps: Record<string, unknown>;
  const start = options?.live_activity;
  if (start) {
    // Apple requires an alert to start an activity: the notification's title and body.
    const alert: Record<string, unknown> = { title: content.title, body: content.body };
    if (options.sound !== undefined) alert.sound = options.sound;
    ({ aps } = liveActivityPayload({
      event: 'start',
      timestamp: nowSeconds,
      contentState: start.content_state,
      priority: priorityOf(content),
      alert,
      staleDate: start.stale_date ? unixSeconds(start.stale_date) : null,
      relevanceScore: start.relevance_score,
      start: { attributesType: start.attributes_type, attributes: start.attributes, channelId: start.channel_id },
    }));
  } else if (isBackground(content)) {
    // Apple refuses an alert, sound or badge in a background push.
    aps = { 'content-available': 1 };
  } else {
    const alert: Record<string, unknown> = { title: content.title, body: content.body };
    aps = { alert };
    if (options) {
      if (options.sound !== undefined) aps.sound = options.sound;
      if (options.badge !== undefined) aps.badge = options.badge;
      if (options.content_available) aps['content-available'] = 1;
      if (options.apns) apnsFields(options.apns, aps, alert);
    }
    if (content.image_url) aps['mutable-content'] = 1;
  }
  const payload: Record<string, unknown> = { aps, notification_id: content.id };
  if (content.image_url) payload.image_url = content.image_url;
  if (content.action_url) payload.action_url = content.action_url;
  if (content.data) payload.data = content.data;
  return payload;
}

function apnsFields(apns: NonNullable<NotificationOptions['apns']>, aps: Record<string, unknown>, alert: Record<string, unknown>): void {
  if (apns.subtitle !== undefined) alert.subtitle = apns.subtitle;
  if (apns.interruption_level !== undefined) aps['interruption-level'] = apns.interruption_level;
  if (apns.relevance_score !== undefined) aps['relevance-score'] = apns.relevance_score;
  if (apns.thread_id !== undefined) aps['thread-id'] = apns.thread_id;
  if (apns.category !== undefined) aps.category = apns.category;
  if (apns.target_content_id !== undefined) aps['target-content-id'] = apns.target_content_id;
}

export function apnsHeaders(content: PushContent, nowSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  const background = isBackground(content);
  const headers: Record<string, string> = {
    'apns-push-type': isLiveActivityStart(content) ? LIVE_ACTIVITY_PUSH_TYPE : isWidgetPush(content) ? WIDGETS_PUSH_TYPE : background ? 'background' : 'alert',
    // Apple requires priority 5 for a background push, whatever was asked.
    'apns-priority': !background && priorityOf(content) === 'high' ? '10' : '5',
    'apns-collapse-id': collapseIdOf(content),
  };
  const ttl = content.options?.ttl;
  // 0 means "deliver now or never", as in APNs itself; absent leaves APNs' storage policy.
  if (ttl !== undefined) headers['apns-expiration'] = String(ttl === 0 ? 0 : nowSeconds + ttl);
  return headers;
}

export function fcmData(content: PushContent): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(content.data ?? {})) {
    data[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  data.notification_id = content.id;
  if (content.action_url) data.action_url = content.action_url;
  return data;
}

/** FCM's priority (docs/api.md#silent-sends): a silent send asks for normal, as Google asks of data messages that show nothing, unless told. */
export const fcmPriorityOf = (content: PushContent) => content.options?.priority ?? (isBackground(content) ? 'normal' : 'high');

export function fcmMessage(content: PushContent, token: string): Record<string, unknown> {
  const android: Record<string, unknown> = {
    priority: fcmPriorityOf(content) === 'high' ? 'HIGH' : 'NORMAL',
    collapse_key: collapseIdOf(content),
  };
  if (content.options?.ttl !== undefined) android.ttl = `${content.options.ttl}s`;
  const fields = content.options?.android;
  // Firebase's AndroidConfig booleans (docs/api.md#platform-fields), on data messages too.
  if (fields?.bandwidth_constrained_ok !== undefined) android.bandwidth_constrained_ok = fields.bandwidth_constrained_ok;
  if (fields?.restricted_satellite_ok !== undefined) android.restricted_satellite_ok = fields.restricted_satellite_ok;
  if (fields?.direct_boot_ok !== undefined) android.direct_boot_ok = fields.direct_boot_ok;
  // A silent send is a data-only message: no `notification` anywhere.
  if (isBackground(content)) return { token, data: fcmData(content), android };
  const notification: Record<string, string> = { title: content.title!, body: content.body! };
  if (content.image_url) notification.image = content.image_url;
  if (fields) {
    const shown = androidNotification(fields);
    if (Object.keys(shown).length > 0) android.notification = shown;
  }
  return { token, notification, data: fcmData(content), android };
}

function androidNotification(fields: NonNullable<NotificationOptions['android']>): Record<string, string> {
  const out: Record<string, string> = {};
  if (fields.channel_id !== undefined) out.channel_id = fields.channel_id;
  if (fields.tag !== undefined) out.tag = fields.tag;
  if (fields.color !== undefined) out.color = fields.color;
  if (fields.icon !== undefined) out.icon = fields.icon;
  if (fields.click_action !== undefined) out.click_action = fields.click_action;
  if (fields.visibility !== undefined) out.visibility = fields.visibility.toUpperCase();
  if (fields.proxy !== undefined) out.proxy = fields.proxy.toUpperCase();
  return out;
}

/** Huawei keeps a message at most 15 days (`android.ttl`). */
export const HMS_MAX_TTL_SECONDS = 1_296_000;

/**
 * Huawei Push Kit's `message` without `token` (HMS Core "Sending Downlink Messages"): `data` is one
 * JSON string; `android.notification` needs a `click_action` (3: open the app); the collapse id is
 * its `tag`, as Huawei's `collapse_key` takes only -1..100. Huawei has no field for FCM's `proxy`,
 * `bandwidth_constrained_ok`, `restricted_satellite_ok` or `direct_boot_ok`: they are not sent.
 */
export function hmsMessage(content: PushContent): Record<string, unknown> {
  const data: Record<string, unknown> = { ...content.data, notification_id: content.id };
  if (content.action_url) data.action_url = content.action_url;
  const background = isBackground(content);
  // As FCM: a silent send asks for normal priority unless told otherwise.
  const priority = content.options?.priority ?? (background ? 'normal' : 'high');
  const android: Record<string, unknown> = { urgency: priority === 'high' ? 'HIGH' : 'NORMAL' };
  const ttl = content.options?.ttl;
  if (ttl !== undefined) android.ttl = `${Math.min(ttl, HMS_MAX_TTL_SECONDS)}s`;
  if (background) return { data: JSON.stringify(data), android };
  const notification: Record<string, string> = { title: content.title!, body: content.body! };
  if (content.image_url) notification.image = content.image_url;
  android.notification = hmsAndroidNotification(content);
  return { data: JSON.stringify(data), notification, android };
}

function hmsAndroidNotification(content: PushContent): Record<string, unknown> {
  const fields = content.options?.android ?? {};
  const out: Record<string, unknown> = {
    click_action: fields.click_action === undefined ? { type: 3 } : { type: 1, action: fields.click_action },
    tag: fields.tag ?? collapseIdOf(content),
  };
  if (fields.channel_id !== undefined) out.channel_id = fields.channel_id;
  if (fields.color !== undefined) out.color = fields.color;
  // Huawei names an icon by its file in the app's res/raw.
  if (fields.icon !== undefined) out.icon = fields.icon.startsWith('/') ? fields.icon : `/raw/${fields.icon}`;
  if (fields.visibility !== undefined) out.visibility = fields.visibility.toUpperCase();
  return out;
}

export function webPushPayload(content: PushContent): Record<string, unknown> {
  if (content.options?.web?.declarative) return declarativeWebPushPayload(content);
  // The message as UnifiedPush carries it, then the browser's fields.
  const payload = unifiedPushPayload(content);
  const web = content.options?.web;
  if (web) {
    if (web.icon !== undefined) payload.icon = web.icon;
    if (web.badge !== undefined) payload.badge = web.badge;
    if (web.tag !== undefined) payload.tag = web.tag;
    if (web.require_interaction !== undefined) payload.require_interaction = web.require_interaction;
    if (web.renotify !== undefined) payload.renotify = web.renotify;
    if (web.silent !== undefined) payload.silent = web.silent;
    // Rebuilt in this order: jsonb storage reorders an object's keys.
    if (web.actions !== undefined)
      payload.actions = web.actions.map(({ action, title, url }) => (url === undefined ? { action, title } : { action, title, url }));
  }
  return payload;
}

/** RFC 8030's number, which marks a push message as declarative (WebKit, "Meet Declarative Web Push"). */
export const DECLARATIVE_WEB_PUSH = 8030;

/**
 * `options.web.declarative` (docs/api.md#declarative-web-push): the message a browser shows without a
 * service worker (Safari 18.4+). `navigate` is the action_url (the API refuses a send without one).
 * Its `data` member (the Push API's, any JSON) carries the notification id and the send's data, so a
 * service worker that shows it reports its events as for any message (docs/api.md#what-a-device-receives).
 */
export function declarativeWebPushPayload(content: PushContent): Record<string, unknown> {
  const notification: Record<string, unknown> = { title: content.title, body: content.body, navigate: content.action_url };
  if (content.lang !== undefined) notification.lang = content.lang;
  const options = content.options;
  if (options?.web?.silent !== undefined) notification.silent = options.web.silent;
  if (options?.badge !== undefined) notification.app_badge = options.badge;
  notification.data = content.data ? { notification_id: content.id, data: content.data } : { notification_id: content.id };
  return { web_push: DECLARATIVE_WEB_PUSH, notification, mutable: false };
}

/** What an Android app's UnifiedPush connector receives (docs/api.md#unifiedpush): the message as one JSON object. */
export function unifiedPushPayload(content: PushContent): Record<string, unknown> {
  const payload: Record<string, unknown> = { notification_id: content.id, title: content.title, body: content.body };
  if (content.image_url) payload.image_url = content.image_url;
  if (content.action_url) payload.action_url = content.action_url;
  if (content.data) payload.data = content.data;
  return payload;
}

export const webPushUrgencyOf = (content: PushContent) => content.options?.web?.urgency ?? (priorityOf(content) === 'high' ? 'high' : 'normal');

export function payloadSize(content: PushContent, platform: Platform): number {
  switch (platform) {
    case 'ios': {
      // An increment's result is known only when the message is built: count the largest.
      const options = content.options;
      const sized = options?.badge_increment !== undefined && !isBackground(content) ? { ...content, options: { ...options, badge: MAX_BADGE } } : content;
      return Buffer.byteLength(JSON.stringify(apnsPayload(sized)));
    }
    case 'android': {
      // FCM counts data keys and values and notification texts, not the JSON.
      const { notification, data, android } = fcmMessage(content, '') as {
        notification?: Record<string, string>;
        data: Record<string, string>;
        android: { notification?: Record<string, string> };
      };
      let size = 0;
      for (const [key, value] of Object.entries(data)) size += Buffer.byteLength(key) + Buffer.byteLength(value);
      for (const value of Object.values(notification ?? {})) size += Buffer.byteLength(value);
      for (const value of Object.values(android.notification ?? {})) size += Buffer.byteLength(value);
      return size;
    }
    case 'web':
      return Buffer.byteLength(JSON.stringify(webPushPayload(content)));
    case 'huawei':
      // Huawei counts the message body but its tokens.
      return Buffer.byteLength(JSON.stringify(hmsMessage(content)));
  }
}

/** Each targeted platform whose limit `content` or one of its localizations passes (docs/api.md#send), with the field path to blame under `path`. */
export function oversized(content: PushContent, path = 'notification'): { platform: Platform; path: string; size: number }[] {
  const variants: [PushContent, string][] = [[content, path]];
  for (const [tag, variant] of localizedVariants(content)) variants.push([variant, `${path}.localizations.${tag}`]);
  return variants.flatMap(([variant, at]) =>
    targetedPlatforms(variant)
      .map((platform) => ({ platform, path: at, size: payloadSize(variant, platform) }))
      .filter(({ platform, size }) => size > PAYLOAD_LIMITS[platform]),
  );
}

const PROVIDER_NAMES: Record<Platform, string> = { ios: 'APNs', android: 'FCM', web: 'Web Push', huawei: 'Huawei Push Kit' };

/** The first of `tooLarge` (oversized) on a platform the app can reach, as the 422's path and message; null when none. */
export function fitProblem(tooLarge: ReturnType<typeof oversized>, reachable: readonly Platform[]): { path: string; message: string } | null {
  const refused = tooLarge.find(({ platform }) => reachable.includes(platform));
  if (!refused) return null;
  const limit = PAYLOAD_LIMITS[refused.platform];
  return {
    path: refused.path,
    message: `The notification is too large for ${PROVIDER_NAMES[refused.platform]}: its payload would be ${refused.size} bytes, the limit is ${limit}.`,
  };
}

/** Platforms that cannot deliver a push that shows nothing (docs/api.md#silent-sends). */
export const SILENTLESS: readonly Platform[] = ['web'];

export function targetedPlatforms(content: PushContent): readonly Platform[] {
  const platforms = (content.options?.platforms ?? PLATFORMS).filter((platform) => !isWidgetPush(content) || platform === 'ios');
  return isBackground(content) ? platforms.filter((platform) => !SILENTLESS.includes(platform)) : platforms;
}
