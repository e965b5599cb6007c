/** The two platforms a React Native app registers as (docs/api.md#installation-resource). */
export type Platform = 'ios' | 'android';

/** Push permission in the service's words: `unknown` until the user answered (docs/api.md#register-installation). */
export type Permission = 'granted' | 'denied' | 'unknown';

/**
 * A push as the service sent it (docs/api.md#what-a-device-receives): `notificationId` is what
 * events report; `data` is the send's `data` (on Android each value a string, as FCM carries it).
 */
export interface PushMessage {
  notificationId: string | null;
  title: string | null;
  body: string | null;
  imageUrl: string | null;
  actionUrl: string | null;
  data: Record<string, unknown>;
}

/** The device's push token and the platform it belongs to. */
export interface DeviceToken {
  platform: Platform;
  token: string;
}

/**
 * What the SDK needs from the native push module; one small adapter per library
 * (firebase.ts, expo.ts) maps that library's API onto it.
 */
export interface PushAdapter {
  readonly library: 'firebase' | 'expo';
  permission(): Promise<Permission>;
  requestPermission(): Promise<Permission>;
  /** The native APNs (iOS) or FCM (Android) token, `null` while the device has none yet. */
  token(): Promise<DeviceToken | null>;
  /** Called when the library says the token changed; the SDK reads it again. Returns the unsubscribe. */
  onTokenChange(listener: () => void): () => void;
  /** A push that arrived while the app runs. */
  onReceived(listener: (message: PushMessage) => void): () => void;
  /** A tap on a notification (`action`: the action button's identifier, `null` for the notification itself). */
  onOpened(listener: (message: PushMessage, action: string | null) => void): () => void;
  /** The tap that launched the app from a quit state, if any. */
  initialOpened(): Promise<{ message: PushMessage; action: string | null } | null>;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const SERVICE_FIELDS = new Set(['notification_id', 'action_url', 'image_url']);

/**
 * Reads the service's fields from a push's custom keys: APNs puts `notification_id`, `action_url`,
 * `image_url` and the `data` object beside `aps`; FCM puts them and each `data` key in one
 * flat map of strings (docs/api.md#what-a-device-receives).
 */
export function readPush(fields: Record<string, unknown> | null | undefined, title: unknown, body: unknown): PushMessage {
  const custom = fields ?? {};
  let data: Record<string, unknown>;
  const nested = custom.data;
  if (nested !== null && typeof nested === 'object' && !Array.isArray(nested)) data = nested as Record<string, unknown>;
  else data = Object.fromEntries(Object.entries(custom).filter(([key]) => !SERVICE_FIELDS.has(key) && key !== 'aps'));
  return {
    notificationId: text(custom.notification_id),
    title: text(title),
    body: text(body),
    imageUrl: text(custom.image_url),
    actionUrl: text(custom.action_url),
    data,
  };
}
