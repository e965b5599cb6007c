import { Platform } from './platform';

/** iOS-only fields (docs/api.md#message-kinds), each mapped to its `aps` key. */
export interface ApnsOptions {
  interruption_level?: 'passive' | 'active' | 'time-sensitive' | 'critical';
  relevance_score?: number;
  thread_id?: string;
  category?: string;
  target_content_id?: string;
  subtitle?: string;
}

/** FCM-only fields, each to the `android.notification` field of the same name. */
export interface AndroidOptions {
  channel_id?: string;
  tag?: string;
  color?: string;
  icon?: string;
  click_action?: string;
  visibility?: 'private' | 'public' | 'secret';
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
  apns?: ApnsOptions;
  android?: AndroidOptions;
  web?: WebOptions;
  live_activity?: LiveActivityStartOptions;
}

export const INTERRUPTION_LEVELS = ['passive', 'active', 'time-sensitive', 'critical'] as const;
export const ANDROID_VISIBILITIES = ['private', 'public', 'secret'] as const;
export const WEB_URGENCIES = ['very-low', 'low', 'normal', 'high'] as const;
