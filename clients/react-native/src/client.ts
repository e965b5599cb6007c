import { ApiConfig, CurrentUser, Fetch, retryable } from './api';
import { expoAdapter, ExpoNotificationsLike } from './adapters/expo';
import { FirebaseMessagingLike, firebaseAdapter } from './adapters/firebase';
import type { Permission, Platform, PushAdapter, PushMessage } from './adapters/types';
import { Outbox, EventType } from './events';
import { InboxApi, XhrConstructor } from './inbox';
import { InstallationState, readState, reconcile, RegistrationBody, StorageLike, wantedBody, writeState } from './installation';
import { PreferencesApi } from './preferences';

/** React Native's `AppState`, as far as the SDK uses it: a return to the foreground re-reads the permission. */
export interface AppStateLike {
  addEventListener(type: 'change', listener: (state: string) => void): { remove(): void };
}

export interface PushClientOptions {
  /** The service's public URL, e.g. `https://push.example.com`. */
  baseUrl: string;
  /** A client token: `installations:write`, `events:write`, and `users:self` for the inbox and preferences (docs/api.md#user-access). */
  token: string;
  /** Where the installation id and state are kept: `AsyncStorage` or anything of its shape. */
  storage: StorageLike;
  /** `messaging()` of @react-native-firebase/messaging; with it, `platform` (`Platform.OS`). */
  messaging?: FirebaseMessagingLike;
  platform?: Platform;
  /** `import * as Notifications from 'expo-notifications'`, for an app that uses it instead of Firebase. */
  notifications?: ExpoNotificationsLike;
  /** React Native's `AppState`: the SDK re-reads the permission whenever the app comes back to the foreground. */
  appState?: AppStateLike;
  /** The installation id to use when this device has none yet: an imported OneSignal subscription's `id` (docs/api.md#import-onesignal). */
  installationId?: string;
  /** Sent as `device` (docs/api.md#register-installation); `locale` and `timezone` default to the JavaScript engine's Intl. */
  device?: { appVersion?: string | null; osVersion?: string | null; model?: string | null; locale?: string | null; timezone?: string | null };
  /** A push that arrived while the app runs (already reported as `received`). */
  onReceived?: (message: PushMessage) => void;
  /** A tap on a notification (already reported as `opened`): open `message.actionUrl`, say. */
  onOpened?: (message: PushMessage, action: string | null) => void;
  /** Background failures (a registration after a token refresh, a report); `console.warn` by default. */
  onError?: (error: unknown) => void;
  /** Replace the global `fetch`, `XMLHttpRequest` and timers (tests). */
  fetch?: Fetch;
  XMLHttpRequest?: XhrConstructor | null;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The JavaScript engine's locale and time zone (Hermes has Intl); `null` when it cannot say. */
function engineLocale(): { locale: string | null; timezone: string | null } {
  try {
    const options = Intl.DateTimeFormat().resolvedOptions();
    return { locale: options.locale ?? null, timezone: options.timeZone ?? null };
  } catch {
    return { locale: null, timezone: null };
  }
}

/**
 * The device side of the push notification service for React Native (docs/api.md#react-native-sdk):
 * keeps this device's installation registered and its token, permission, user, tags and Live
 * Activity start tokens current, reports received and opened, and reads the user's inbox and
 * preferences.
 */
export class PushClient {
  /** The current user's topic and channel choices (docs/api.md#preferences), after `setUser`. */
  readonly preferences: PreferencesApi;
  /** The current user's inbox (docs/api.md#inbox), after `setUser`. */
  readonly inbox: InboxApi;

  private readonly api: ApiConfig;
  private readonly fetcher: Fetch;
  private readonly outbox: Outbox;
  private readonly stops: (() => void)[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private readonly opened = new Set<string>();

  private constructor(
    private readonly options: PushClientOptions,
    private readonly adapter: PushAdapter,
    private state: InstallationState,
  ) {
    this.api = { baseUrl: options.baseUrl, token: options.token };
    this.fetcher = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    this.outbox = new Outbox(options.storage, this.api, this.fetcher);
    this.preferences = new PreferencesApi(this.api, this.fetcher, () => this.currentUser());
    const Xhr =
      options.XMLHttpRequest === undefined ? (globalThis as { XMLHttpRequest?: XhrConstructor }).XMLHttpRequest : (options.XMLHttpRequest ?? undefined);
    this.inbox = new InboxApi(
      this.api,
      {
        fetch: this.fetcher,
        XMLHttpRequest: Xhr,
        sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
        onError: this.reportError,
      },
      () => this.currentUser(),
    );
  }

  /**
   * Reads (or makes, once) the installation id, listens to the push module (token changes,
   * pushes, taps, the foreground), reports the tap that launched the app and registers the
   * installation if the permission is granted or the service already knows it. Sends nothing
   * before that: call `requestPermission()` to ask.
   */
  static async init(options: PushClientOptions): Promise<PushClient> {
    for (const key of ['baseUrl', 'token'] as const) {
      if (typeof options[key] !== 'string' || options[key] === '') throw new TypeError(`PushClient.init: ${key} is required`);
    }
    if (!options.storage) throw new TypeError('PushClient.init: storage is required (AsyncStorage, or anything with getItem and setItem)');
    const client = new PushClient(options, PushClient.adapter(options), await readState(options.storage, options.installationId));
    client.listen();
    await client.sync().catch(client.reportError);
    await client.outbox.flush(client.reportError);
    const launched = await client.adapter.initialOpened().catch((error: unknown) => (client.reportError(error), null));
    if (launched) client.handleOpened(launched.message, launched.action);
    return client;
  }

  private static adapter(options: PushClientOptions): PushAdapter {
    if (options.messaging && options.notifications) throw new TypeError('PushClient.init: pass messaging (Firebase) or notifications (Expo), not both');
    if (options.messaging) {
      if (options.platform !== 'ios' && options.platform !== 'android')
        throw new TypeError("PushClient.init: with messaging, pass platform: Platform.OS ('ios' or 'android')");
      return firebaseAdapter(options.messaging, options.platform);
    }
    if (options.notifications) return expoAdapter(options.notifications);
    throw new TypeError('PushClient.init: pass messaging (@react-native-firebase/messaging) or notifications (expo-notifications)');
  }

  /** This device's installation id (docs/api.md#installations). */
  get installationId(): string {
    return this.state.id;
  }

  /** Which library the SDK talks to. */
  get library(): PushAdapter['library'] {
    return this.adapter.library;
  }

  /** The permission as the push module says now: `unknown` until the user answered. */
  permission(): Promise<Permission> {
    return this.adapter.permission();
  }

  /** Asks for the permission (if it was never asked, the system shows its prompt), then registers with the answer. */
  async requestPermission(): Promise<Permission> {
    const permission = await this.adapter.requestPermission();
    await this.sync();
    return permission;
  }

  /**
   * Attaches the installation to your user (`null` detaches it, at logout). With identity
   * verification on (docs/api.md#identity-verification), pass `userIdHash`: HMAC-SHA256 of
   * `userId` under the app's identity secret, computed by your backend at login. A refusal (a
   * wrong hash: 422) throws and keeps the previous user.
   */
  async setUser(userId: string | null, userIdHash?: string): Promise<void> {
    await this.change({ userId, userIdHash: userId === null ? null : (userIdHash ?? null) });
  }

  /** Replaces the installation's tags (docs/api.md#recipients). */
  async setTags(tags: string[]): Promise<void> {
    await this.change({ tags: [...new Set(tags)].sort() });
  }

  /**
   * Gives the service the push-to-start token of an ActivityKit attributes type (iOS 17.2+,
   * `Activity<T>.pushToStartTokenUpdates` in your native code, as hex), so sends can start Live
   * Activities (docs/api.md#live-activity-start-tokens); `null` removes the type.
   */
  async setLiveActivityStartToken(attributesType: string, token: string | null): Promise<void> {
    const tokens = { ...(this.state.liveActivityStartTokens ?? {}) };
    if (token === null) delete tokens[attributesType];
    else tokens[attributesType] = token.toLowerCase();
    await this.change({ liveActivityStartTokens: tokens });
  }

  /**
   * Registers (PUT) or updates (PATCH) the installation when something the service should know
   * changed: the token, the permission, the device, the user, tags or start tokens. Sends nothing
   * otherwise. Called on start, on token changes and on every return to the foreground.
   */
  sync(): Promise<void> {
    return this.serial(async () => {
      this.state = await this.reconciled(this.state);
      await writeState(this.options.storage, this.state);
    });
  }

  /** Stops listening to the push module and the app state. */
  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  /** Applies a change of what the app set; a refusal restores what was there (a lost connection keeps it, for the next sync). */
  private change(set: Partial<Pick<InstallationState, 'userId' | 'userIdHash' | 'tags' | 'liveActivityStartTokens'>>): Promise<void> {
    return this.serial(async () => {
      const next = { ...this.state, ...set };
      try {
        this.state = await this.reconciled(next);
      } catch (error) {
        if (retryable(error)) this.state = next;
        await writeState(this.options.storage, this.state);
        throw error;
      }
      await writeState(this.options.storage, this.state);
    });
  }

  /** The state after telling the service what it lacks; unchanged while there is nothing to register. */
  private async reconciled(state: InstallationState): Promise<InstallationState> {
    const permission = await this.adapter.permission();
    // Before the user was asked, or after a refusal of an installation the service never knew, nothing is sent.
    if (permission !== 'granted' && !state.registered) return state;
    const token =
      (await this.adapter.token()) ?? (state.registered ? { platform: state.registered.body.platform, token: state.registered.body.push_token } : null);
    if (!token) return state;
    if (state.liveActivityStartTokens && token.platform !== 'ios') throw new Error('setLiveActivityStartToken: Live Activities are iOS only');
    return reconcile(this.api, this.fetcher, state, wantedBody(state, token, permission, this.device()), this.now());
  }

  private device(): RegistrationBody['device'] {
    const given = this.options.device ?? {};
    const engine = engineLocale();
    return {
      app_version: given.appVersion ?? null,
      os_version: given.osVersion ?? null,
      model: given.model ?? null,
      locale: given.locale !== undefined ? given.locale : engine.locale,
      timezone: given.timezone !== undefined ? given.timezone : engine.timezone,
    };
  }

  private listen(): void {
    const resync = () => void this.sync().catch(this.reportError);
    this.stops.push(this.adapter.onTokenChange(resync));
    this.stops.push(
      this.adapter.onReceived((message) => {
        void this.report(message, 'received');
        this.options.onReceived?.(message);
      }),
    );
    this.stops.push(this.adapter.onOpened((message, action) => this.handleOpened(message, action)));
    if (this.options.appState) {
      const subscription = this.options.appState.addEventListener('change', (state) => {
        if (state !== 'active') return;
        resync();
        void this.outbox.flush(this.reportError);
      });
      this.stops.push(() => subscription.remove());
    }
  }

  private handleOpened(message: PushMessage, action: string | null): void {
    // The launching tap may come both from the initial-notification call and the listener.
    if (message.notificationId) {
      const key = `${message.notificationId}/${action}`;
      if (this.opened.has(key)) return;
      this.opened.add(key);
    }
    void this.report(message, 'opened', action);
    this.options.onOpened?.(message, action);
  }

  /** POST /api/v1/notifications/{id}/events (docs/api.md#reads-and-events); a push of another sender has no notification id and is not reported. */
  private async report(message: PushMessage, type: EventType, action: string | null = null): Promise<void> {
    if (!message.notificationId) return;
    await this.outbox.report(
      { notificationId: message.notificationId, installationId: this.state.id, type, action, occurredAt: new Date(this.now()).toISOString() },
      this.reportError,
    );
  }

  private currentUser(): CurrentUser {
    if (typeof this.state.userId !== 'string') throw new Error('PushClient: call setUser(userId, userIdHash) before using the inbox or preferences');
    return { userId: this.state.userId, userIdHash: this.state.userIdHash ?? null };
  }

  /** One change at a time: a token refresh and a setUser never PATCH from the same stale state. */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private readonly reportError = (error: unknown) => (this.options.onError ?? console.warn)(error);
}
