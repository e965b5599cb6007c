import { callApi, CurrentUser, Fetch, installationPath, PushApiError } from './shared/api';
import { PreferencesApi } from './preferences';
import {
  browserPermission,
  CONFIG_KEY,
  INSTALLATION_KEY,
  InstallationState,
  installationState,
  patchField,
  register,
  StoredConfig,
  SubscriptionJson,
} from './shared/installation';
import { update, write } from './shared/store';

export { PushApiError } from './shared/api';
export { Inbox, type InboxEvent, type InboxMessage, type InboxOptions, type InboxPage } from './inbox';
export type { Preferences, PreferencesChange } from './preferences';

/** The part of a `PushSubscription` the SDK uses. */
export interface PushSubscriptionLike {
  readonly options?: { readonly applicationServerKey?: ArrayBuffer | null };
  toJSON(): SubscriptionJson;
  unsubscribe(): Promise<boolean>;
}

/** The part of a `PushManager` the SDK uses; `registration.pushManager` unless replaced. */
export interface PushManagerLike {
  getSubscription(): Promise<PushSubscriptionLike | null>;
  subscribe(options: { userVisibleOnly: boolean; applicationServerKey: Uint8Array<ArrayBuffer> }): Promise<PushSubscriptionLike>;
}

export interface PushClientOptions {
  /** The service's public URL, e.g. `https://push.example.com` (its api must allow this page's origin: CORS_ALLOWED_ORIGINS). */
  baseUrl: string;
  /** A token holding only `installations:write` and `events:write`: it is public once in a page. */
  token: string;
  /** The app's VAPID public key (`web_push.public_key` of `apps:credentials`), base64url. */
  vapidPublicKey: string;
  /** Your service worker script, which imports the SDK's worker module. */
  serviceWorkerUrl: string;
  serviceWorkerScope?: string;
  /** `module` for an ES module worker; `classic` (the default) for one that uses importScripts. */
  serviceWorkerType?: 'classic' | 'module';
  /** Sent as `device.app_version`. */
  appVersion?: string;
  /** Background failures (re-registering after a permission change); `console.warn` by default. */
  onError?: (error: unknown) => void;
  /**
   * Replaces the registration's `pushManager`: for a shell that owns the subscription, and for
   * tests where the browser cannot reach a real push service (the SDK's e2e injects the loopback
   * push service's subscription this way).
   */
  pushManager?: PushManagerLike;
  /** Replaces the global `fetch` (tests). */
  fetch?: Fetch;
}

/** The browser's word for the permission: `default` until the user answered. */
export type Permission = NotificationPermission;

export function base64UrlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const base64 = value
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(value.length / 4) * 4, '=');
  const binary = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const sameBytes = (a: ArrayBuffer | null | undefined, b: Uint8Array) => {
  if (!a) return true; // the browser does not say: assume it is ours
  const view = new Uint8Array(a);
  return view.length === b.length && view.every((byte, i) => byte === b[i]);
};

/** Resolves once the registration has an active worker (pushManager.subscribe needs one). */
function activated(registration: ServiceWorkerRegistration): Promise<void> {
  if (registration.active) return Promise.resolve();
  const worker = registration.installing ?? registration.waiting;
  return new Promise((resolve, reject) => {
    if (!worker) return reject(new Error('The service worker registration has no worker'));
    worker.addEventListener('statechange', () => {
      if (worker.state === 'activated') resolve();
      if (worker.state === 'redundant') reject(new Error('The service worker failed to install'));
    });
  });
}

/**
 * The page side of Web Push for the push notification service: keeps this browser's
 * installation registered (docs/api.md#installations) and its user, tags and permission current.
 */
export class PushClient {
  private user: CurrentUser | null = null;

  /** The current user's topic and channel choices (docs/api.md#preferences), after `setUser`. */
  readonly preferences: PreferencesApi;

  private constructor(
    private readonly options: PushClientOptions,
    private readonly registration: ServiceWorkerRegistration,
    private readonly fetcher: Fetch,
    readonly installationId: string,
  ) {
    this.preferences = new PreferencesApi(
      () => this.api,
      fetcher,
      () => this.currentUser(),
    );
  }

  /**
   * Registers the service worker, keeps the configuration for it and generates (once) the
   * installation id. Re-registers when the subscription or the permission changed since the
   * last visit, and whenever the permission changes while the page is open.
   */
  static async init(options: PushClientOptions): Promise<PushClient> {
    if (!PushClient.isSupported()) {
      throw new Error('PushClient.init: this browser has no service workers or notifications (or the page is not served over HTTPS)');
    }
    for (const key of ['baseUrl', 'token', 'vapidPublicKey', 'serviceWorkerUrl'] as const) {
      if (typeof options[key] !== 'string' || options[key] === '') throw new TypeError(`PushClient.init: ${key} is required`);
    }
    const fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
    await write<StoredConfig>(CONFIG_KEY, {
      baseUrl: options.baseUrl,
      token: options.token,
      vapidPublicKey: options.vapidPublicKey,
      appVersion: options.appVersion ?? null,
    });
    const state = await installationState();
    const registration = await navigator.serviceWorker.register(options.serviceWorkerUrl, {
      scope: options.serviceWorkerScope,
      type: options.serviceWorkerType ?? 'classic',
    });
    const client = new PushClient(options, registration, fetcher, state.id);
    await client.sync().catch(client.reportError);
    void navigator.permissions
      ?.query({ name: 'notifications' })
      .then((status) => status.addEventListener('change', () => void client.sync().catch(client.reportError)))
      .catch(() => undefined);
    return client;
  }

  /** Whether this browser can receive Web Push here: service workers (HTTPS or localhost) and notifications. */
  static isSupported(): boolean {
    return typeof navigator !== 'undefined' && 'serviceWorker' in navigator && typeof Notification !== 'undefined';
  }

  /** `default` (not asked yet), `granted` or `denied`. */
  get permission(): Permission {
    return typeof Notification === 'undefined' ? 'denied' : Notification.permission;
  }

  /**
   * Call from a user gesture (a click): asks for the permission if it was never asked,
   * subscribes with the VAPID key and registers the installation. Returns the permission.
   */
  async subscribe(): Promise<Permission> {
    let permission = this.permission;
    if (permission === 'default') permission = await Notification.requestPermission();
    if (permission !== 'granted') {
      await this.sync();
      return permission;
    }
    await activated(this.registration);
    const key = base64UrlToBytes(this.options.vapidPublicKey);
    let subscription = await this.pushManager.getSubscription();
    if (subscription && !sameBytes(subscription.options?.applicationServerKey, key)) {
      // Subscribed with another VAPID key (the app's pair was replaced): the service cannot push to it.
      await subscription.unsubscribe();
      subscription = null;
    }
    subscription ??= await this.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    await register(this.api, this.fetcher, subscription.toJSON(), 'granted', this.appVersion);
    return permission;
  }

  /**
   * Attaches the installation to your user (`null` detaches it, e.g. at logout). With identity
   * verification on (docs/api.md), pass `userIdHash`: HMAC-SHA256 of `userId` under the app's
   * identity secret, computed by your backend at login and handed to the page (never the secret).
   */
  async setUser(userId: string | null, userIdHash?: string): Promise<void> {
    if (!(await patchField(this.api, this.fetcher, 'user_id', userId, userId === null ? null : (userIdHash ?? null)))) await this.sync();
    this.user = userId === null ? null : { userId, userIdHash: userIdHash ?? null };
  }

  /** Replaces the installation's tags (docs/api.md#recipients). */
  async setTags(tags: string[]): Promise<void> {
    const normalized = [...new Set(tags)].sort();
    if (!(await patchField(this.api, this.fetcher, 'tags', normalized))) await this.sync();
  }

  /** Deletes the installation on the service and drops the browser's subscription. */
  async unsubscribe(): Promise<void> {
    const state = await installationState();
    if (state.registered) {
      try {
        await callApi(this.api, this.fetcher, 'DELETE', installationPath(state.id));
      } catch (error) {
        if (!(error instanceof PushApiError && error.status === 404)) throw error;
      }
      await update<InstallationState>(INSTALLATION_KEY, (current) => ({ ...(current ?? state), registered: undefined }));
    }
    await (await this.pushManager.getSubscription())?.unsubscribe();
  }

  /**
   * Registers again when something the service should know changed: a new subscription, the
   * permission, the device, a user or tags set before registering. Sends nothing otherwise.
   */
  private async sync(): Promise<void> {
    const permission = browserPermission(this.permission);
    const subscription = permission === 'granted' ? await this.pushManager.getSubscription() : null;
    if (subscription) {
      await register(this.api, this.fetcher, subscription.toJSON(), permission, this.appVersion);
      return;
    }
    // No subscription to register: tell the service only if it knows this installation.
    const state = await installationState();
    if (state.registered) {
      const last = state.registered.body.web_push_subscription;
      await register(this.api, this.fetcher, { endpoint: last.endpoint, keys: last.keys }, permission, this.appVersion);
    }
  }

  /** The user of setUser, for the per-user routes (preferences). */
  private currentUser(): CurrentUser {
    if (!this.user) throw new Error('PushClient: call setUser(userId, userIdHash) before using preferences');
    return this.user;
  }

  private get pushManager(): PushManagerLike {
    return this.options.pushManager ?? this.registration.pushManager;
  }

  private get api() {
    return { baseUrl: this.options.baseUrl, token: this.options.token };
  }

  private get appVersion() {
    return this.options.appVersion ?? null;
  }

  private readonly reportError = (error: unknown) => (this.options.onError ?? console.warn)(error);
}
