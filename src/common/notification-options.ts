import { Platform } from './platform';
import type { Channel, NotificationCategory } from './vocabulary';

/** iOS-only fields (docs/api.md#message-kinds), each mapped to its `aps` key. */
export interface ApnsOptions {
  interruption_level?: 'passive' | 'active' | 'time-sensitive' | 'critical';
  relevance_score?: number;
  thread_id?: string;
  category?: string;
  target_content_id?: string;
  subtitle?: string;
}

/** FCM-only fields: the display ones to `android.notification`, the delivery ones to `android` (docs/api.md#platform-fields). */
export interface AndroidOptions {
  channel_id?: string;
  tag?: string;
  color?: string;
  icon?: string;
  click_action?: string;
  visibility?: 'private' | 'public' | 'secret';
  /** `android.notification.proxy`, in upper case. */
  proxy?: 'allow' | 'deny' | 'if_priority_lowered';
  /** `android.bandwidth_constrained_ok`, `android.restricted_satellite_ok`, `android.direct_boot_ok`. */
  bandwidth_constrained_ok?: boolean;
  restricted_satellite_ok?: boolean;
  direct_boot_ok?: boolean;
}

/** A web notification's button: its click opens `url` (else the notification's `action_url`). */
export interface WebAction {
  action: string;
  title: string;
  url?: string;
}

/** Web Push-only fields, all of them in the decrypted payload; `urgency` is the `Urgency` header. */
export interface WebOptions {
  icon?: string;
  badge?: string;
  tag?: string;
  require_interaction?: boolean;
  renotify?: boolean;
  silent?: boolean;
  urgency?: 'very-low' | 'low' | 'normal' | 'high';
  actions?: WebAction[];
  /** Send the declarative payload (docs/api.md#declarative-web-push) instead of ours; needs an action_url. */
  declarative?: boolean;
}

/**
 * A send that starts a Live Activity on each iOS installation holding a push-to-start token for
 * `attributes_type` (docs/api.md#live-activity-starts). Dates are ISO 8601, as in the request.
 */
export interface LiveActivityStartOptions {
  attributes_type: string;
  attributes: Record<string, unknown>;
  content_state: Record<string, unknown>;
  stale_date?: string;
  relevance_score?: number;
  /** A broadcast channel the started activities listen to (`input-push-channel`); else they get update tokens. */
  channel_id?: string;
}

/**
 * The delivery options of a send (docs/api.md#send), as stored with the notification and read by the
 * worker: here, so that notifications and delivery share the type without importing each other.
 */
export interface NotificationOptions {
  ttl?: number;
  priority?: 'high' | 'normal';
  collapse_id?: string;
  badge?: number;
  /** Added to the installation's badge count when its message is built (docs/api.md#badge-arithmetic). */
  badge_increment?: number;
  sound?: string;
  platforms?: Platform[];
  /** "HH:MM": each installation's due time in its own time zone (docs/api.md#scheduling). */
  local_time?: string;
  /** A background push (docs/api.md#silent-sends); without `notification`, nothing is shown. */
  content_available?: boolean;
  /** At most this many messages reach the providers per minute, spread evenly (docs/api.md#pacing). */
  throttle_per_minute?: number;
  /** `transactional` when absent; caps and quiet hours apply to `marketing` (docs/api.md#pacing). */
  category?: NotificationCategory;
  /** docs/api.md#topics-and-preferences: users not subscribed to it get nothing. */
  topic?: string;
  apns?: ApnsOptions;
  android?: AndroidOptions;
  web?: WebOptions;
  /** Everything but the delivery (docs/api.md#dry-runs): FCM validates the message, nothing reaches a device. */
  dry_run?: boolean;
  live_activity?: LiveActivityStartOptions;
  /** A WidgetKit push (docs/api.md#widgets): no `notification`; iOS installations holding a widget token reload their widgets. */
  widgets?: boolean;
  /** `["push"]` when absent; with `inbox`, one inbox message per user reached (docs/api.md#inbox). */
  channels?: Channel[];
  /** An inline notification's texts are Liquid, rendered per installation (docs/api.md#sending-with-a-template). */
  personalize?: boolean;
  /** With `variants`: a sample first, the winner to the rest (docs/api.md#a-b-test-with-a-winner). */
  ab_test?: AbTestOptions;
}

/** `options.ab_test` (docs/api.md#a-b-test-with-a-winner). */
export interface AbTestOptions {
  /** 1..50: the share of the audience in the sample. */
  sample_percent: number;
  /** `<n>m` or `<n>h`, 5 minutes to 72 hours after the sample's fan-out began. */
  winner_after: string;
  metric: 'opened' | 'displayed';
}

/** Whether a send goes to the devices, and to the inbox (docs/api.md#inbox). */
export const channelsOf = (options: NotificationOptions | null): { push: boolean; inbox: boolean } => {
  const channels = options?.channels ?? ['push'];
  return { push: channels.includes('push'), inbox: channels.includes('inbox') };
};

/** Bounds of an app's frequency cap (docs/api.md#app-settings): messages, and the window in hours. */
export const FREQUENCY_CAP_MAX = { min: 1, max: 100 } as const;
export const FREQUENCY_CAP_HOURS = { min: 1, max: 720 } as const;

/** Bounds of `options.throttle_per_minute` (docs/api.md#pacing). */
export const THROTTLE_PER_MINUTE = { min: 60, max: 1_000_000 } as const;

export const INTERRUPTION_LEVELS = ['passive', 'active', 'time-sensitive', 'critical'] as const;
export const ANDROID_VISIBILITIES = ['private', 'public', 'secret'] as const;
export const ANDROID_PROXIES = ['allow', 'deny', 'if_priority_lowered'] as const;
export const WEB_URGENCIES = ['very-low', 'low', 'normal', 'high'] as const;
