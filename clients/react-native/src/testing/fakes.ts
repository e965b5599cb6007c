/**
 * The native modules replaced at their JavaScript boundary: objects with the real API shape of
 * @react-native-firebase/messaging's `messaging()` and of expo-notifications, driven by the test
 * (a permission answer, a token rotation, a push, a tap). Used by the unit tests and by
 * test/integration/react-native-sdk.int-spec.ts against the running service.
 */
import type { ExpoNotificationLike, ExpoNotificationResponseLike, ExpoNotificationsLike, ExpoPermissionsLike, DevicePushTokenLike } from '../adapters/expo';
import type { FirebaseMessagingLike, RemoteMessageLike } from '../adapters/firebase';
import type { Fetch, ResponseLike } from '../api';
import type { StorageLike } from '../installation';
import type { XhrLike } from '../inbox';

type Listener<T> = (value: T) => unknown;

class Listeners<T> {
  private readonly all = new Set<Listener<T>>();
  add(listener: Listener<T>): () => void {
    this.all.add(listener);
    return () => this.all.delete(listener);
  }
  emit(value: T): void {
    for (const listener of [...this.all]) void listener(value);
  }
  get size(): number {
    return this.all.size;
  }
}

/** `messaging.AuthorizationStatus` of @react-native-firebase/messaging. */
export const AuthorizationStatus = { NOT_DETERMINED: -1, DENIED: 0, AUTHORIZED: 1, PROVISIONAL: 2, EPHEMERAL: 3 } as const;

/** What `messaging()` returns, on one simulated device. */
export class FakeFirebaseMessaging implements FirebaseMessagingLike {
  status: number = AuthorizationStatus.NOT_DETERMINED;
  /** What the user answers to the system prompt. */
  answer: number = AuthorizationStatus.AUTHORIZED;
  isDeviceRegisteredForRemoteMessages = false;
  permissionRequests = 0;
  initial: RemoteMessageLike | null = null;
  backgroundHandler: ((message: RemoteMessageLike) => Promise<unknown>) | null = null;
  private readonly tokenRefresh = new Listeners<string>();
  private readonly messages = new Listeners<RemoteMessageLike>();
  private readonly openings = new Listeners<RemoteMessageLike>();

  constructor(
    private readonly platform: 'ios' | 'android',
    private apnsToken: string,
    private fcmToken: string,
  ) {}

  async getToken(): Promise<string> {
    return this.fcmToken;
  }
  async getAPNSToken(): Promise<string | null> {
    // iOS gives the APNs token once registered with APNs; Android has none.
    return this.platform === 'ios' && this.isDeviceRegisteredForRemoteMessages ? this.apnsToken : null;
  }
  async registerDeviceForRemoteMessages(): Promise<void> {
    this.isDeviceRegisteredForRemoteMessages = true;
  }
  async hasPermission(): Promise<number> {
    return this.status;
  }
  async requestPermission(): Promise<number> {
    this.permissionRequests++;
    if (this.status === AuthorizationStatus.NOT_DETERMINED) this.status = this.answer;
    if (this.platform === 'ios') this.isDeviceRegisteredForRemoteMessages = true;
    return this.status;
  }
  onTokenRefresh(listener: (token: string) => unknown): () => void {
    return this.tokenRefresh.add(listener);
  }
  onMessage(listener: (message: RemoteMessageLike) => unknown): () => void {
    return this.messages.add(listener);
  }
  onNotificationOpenedApp(listener: (message: RemoteMessageLike) => unknown): () => void {
    return this.openings.add(listener);
  }
  async getInitialNotification(): Promise<RemoteMessageLike | null> {
    return this.initial;
  }
  setBackgroundMessageHandler(handler: (message: RemoteMessageLike) => Promise<unknown>): void {
    this.backgroundHandler = handler;
  }

  /** The push services gave the device new tokens (FCM says so through onTokenRefresh). */
  rotateTokens(apnsToken: string, fcmToken: string): void {
    this.apnsToken = apnsToken;
    this.fcmToken = fcmToken;
    this.tokenRefresh.emit(fcmToken);
  }
  /** A push arrives while the app is in the foreground. */
  deliver(message: RemoteMessageLike): void {
    this.messages.emit(message);
  }
  /** The user taps a notification while the app is in the background. */
  tap(message: RemoteMessageLike): void {
    this.openings.emit(message);
  }
  get listenerCount(): number {
    return this.tokenRefresh.size + this.messages.size + this.openings.size;
  }
}

/** A RemoteMessage as @react-native-firebase/messaging hands over the service's push (docs/api.md#what-a-device-receives). */
export function firebaseRemoteMessage(
  platform: 'ios' | 'android',
  notificationId: string,
  extra: { title?: string; body?: string; action_url?: string; data?: Record<string, unknown> } = {},
): RemoteMessageLike {
  const notification = { title: extra.title ?? 'Hello', body: extra.body ?? 'World' };
  const custom = extra.data ?? {};
  // Android: FCM's flat map of strings; iOS: the APNs custom keys, `data` an object.
  const data: Record<string, string | object> =
    platform === 'android'
      ? { ...Object.fromEntries(Object.entries(custom).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])), notification_id: notificationId }
      : { notification_id: notificationId, ...(extra.data ? { data: custom } : {}) };
  if (extra.action_url) data.action_url = extra.action_url;
  return { messageId: `msg-${notificationId}`, data, notification };
}

export const DEFAULT_ACTION_IDENTIFIER = 'expo.modules.notifications.actions.DEFAULT';

/** `import * as Notifications from 'expo-notifications'`, on one simulated device. */
export class FakeExpoNotifications implements ExpoNotificationsLike {
  readonly DEFAULT_ACTION_IDENTIFIER = DEFAULT_ACTION_IDENTIFIER;
  permissions: ExpoPermissionsLike = { status: 'undetermined', granted: false, canAskAgain: true, expires: 'never' };
  /** What the user answers to the system prompt. */
  answer: 'granted' | 'denied' = 'granted';
  permissionRequests = 0;
  lastResponse: ExpoNotificationResponseLike | null = null;
  private readonly tokens = new Listeners<DevicePushTokenLike>();
  private readonly received = new Listeners<ExpoNotificationLike>();
  private readonly responses = new Listeners<ExpoNotificationResponseLike>();

  constructor(
    private readonly platform: 'ios' | 'android',
    private token: string,
  ) {}

  async getDevicePushTokenAsync(): Promise<DevicePushTokenLike> {
    return { type: this.platform, data: this.token };
  }
  async getPermissionsAsync(): Promise<ExpoPermissionsLike> {
    return this.permissions;
  }
  async requestPermissionsAsync(): Promise<ExpoPermissionsLike> {
    this.permissionRequests++;
    if (this.permissions.status === 'undetermined') this.setPermission(this.answer);
    return this.permissions;
  }
  addPushTokenListener(listener: (token: DevicePushTokenLike) => void) {
    return { remove: this.tokens.add(listener) };
  }
  addNotificationReceivedListener(listener: (notification: ExpoNotificationLike) => void) {
    return { remove: this.received.add(listener) };
  }
  addNotificationResponseReceivedListener(listener: (response: ExpoNotificationResponseLike) => void) {
    return { remove: this.responses.add(listener) };
  }
  async getLastNotificationResponseAsync(): Promise<ExpoNotificationResponseLike | null> {
    return this.lastResponse;
  }

  /** The user changes the permission in the system settings. */
  setPermission(status: 'granted' | 'denied'): void {
    const granted = status === 'granted';
    // IosAuthorizationStatus AUTHORIZED 2, DENIED 1; Android's channel importance (AndroidImportance DEFAULT 5, NONE 2).
    const platform = this.platform === 'ios' ? { ios: { status: granted ? 2 : 1 } } : { android: { importance: granted ? 5 : 2 } };
    this.permissions = { status, granted, canAskAgain: false, expires: 'never', ...platform };
  }
  rotateToken(token: string): void {
    this.token = token;
    this.tokens.emit({ type: this.platform, data: token });
  }
  deliver(notification: ExpoNotificationLike): void {
    this.received.emit(notification);
  }
  respond(notification: ExpoNotificationLike, actionIdentifier = DEFAULT_ACTION_IDENTIFIER): void {
    const response = { notification, actionIdentifier };
    this.lastResponse = response;
    this.responses.emit(response);
  }
  get listenerCount(): number {
    return this.tokens.size + this.received.size + this.responses.size;
  }
}

/** An expo-notifications `Notification` for the service's push: the APNs payload in `trigger.payload` (iOS), the FCM message in `trigger.remoteMessage` (Android). */
export function expoNotification(
  platform: 'ios' | 'android',
  notificationId: string,
  extra: { title?: string; body?: string; action_url?: string } = {},
): ExpoNotificationLike {
  const title = extra.title ?? 'Hello';
  const body = extra.body ?? 'World';
  const custom = { notification_id: notificationId, ...(extra.action_url ? { action_url: extra.action_url } : {}) };
  const trigger =
    platform === 'ios'
      ? { type: 'push', payload: { aps: { alert: { title, body } }, ...custom } }
      : { type: 'push', remoteMessage: { data: custom as Record<string, string> } };
  return { date: Date.now(), request: { identifier: `request-${notificationId}`, content: { title, body, data: null }, trigger } };
}

/** AsyncStorage in memory. */
export class MemoryStorage implements StorageLike {
  readonly items = new Map<string, string>();
  async getItem(key: string): Promise<string | null> {
    return this.items.get(key) ?? null;
  }
  async setItem(key: string, value: string): Promise<void> {
    this.items.set(key, value);
  }
}

/** A recorded request of FakeFetch. */
export interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

export type Answer = { status: number; body?: unknown } | 'network-error';

/** `fetch` that records every request and answers from a queue of scripted answers (default 200). */
export class FakeFetch {
  readonly sent: Sent[] = [];
  private readonly answers: Answer[] = [];

  answer(...answers: Answer[]): void {
    this.answers.push(...answers);
  }

  readonly fetch: Fetch = async (url, init): Promise<ResponseLike> => {
    this.sent.push({ method: init.method ?? 'GET', url, headers: init.headers ?? {}, body: init.body === undefined ? undefined : JSON.parse(init.body) });
    const answer = this.answers.shift() ?? { status: 200, body: { data: {} } };
    if (answer === 'network-error') throw new TypeError('Network request failed');
    const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
    return { ok: answer.status >= 200 && answer.status < 300, status: answer.status, text: async () => text, body: null };
  };

  /** Requests as `METHOD path` (path after /api/v1). */
  get routes(): string[] {
    return this.sent.map((r) => `${r.method} ${new URL(r.url).pathname.replace('/api/v1', '')}`);
  }
}

/** React Native's XMLHttpRequest as the stream sees it: the test feeds the answer's text in pieces. */
export class FakeXhr implements XhrLike {
  static readonly opened: FakeXhr[] = [];
  readyState = 0;
  status = 0;
  responseText = '';
  onreadystatechange: (() => void) | null = null;
  onerror: (() => void) | null = null;
  url = '';
  aborted = false;
  readonly headers: Record<string, string> = {};

  open(_method: string, url: string): void {
    this.url = url;
    this.readyState = 1;
  }
  setRequestHeader(name: string, value: string): void {
    this.headers[name] = value;
  }
  send(): void {
    FakeXhr.opened.push(this);
  }
  abort(): void {
    this.aborted = true;
  }
  /** The next piece of the answer arrives (readyState 3), or the last (4). */
  receive(text: string, status = 200, end = false): void {
    this.status = status;
    this.responseText += text;
    this.readyState = end ? 4 : 3;
    this.onreadystatechange?.();
  }
}

/** React Native's AppState: the test brings the app back to the foreground. */
export class FakeAppState {
  private listener: ((state: string) => void) | null = null;
  addEventListener(_type: 'change', listener: (state: string) => void) {
    this.listener = listener;
    return { remove: () => void (this.listener = null) };
  }
  foreground(): void {
    this.listener?.('active');
  }
  get listening(): boolean {
    return this.listener !== null;
  }
}
